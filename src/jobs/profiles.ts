/**
 * Profiles (Firecrawl v2's `profile: {name, saveChanges}`): a browser's cookies and
 * local storage kept under a name between runs, so that a login done once through
 * actions serves every later run. Each belongs to one owner (serve: the API key;
 * the command line: this machine's user) and is never seen by another.
 */
import type { ProfileHandle, ProfileState } from '../api/actionTypes.js';
import type { Engine } from '../engine/engine.js';

/** Where profiles are kept, by owner and name. */
export interface ProfileStore {
  load(owner: string | undefined, name: string): Promise<ProfileState | undefined>;
  save(owner: string | undefined, name: string, state: ProfileState): Promise<void>;
  /** The owner's profiles, by name, with when each was last saved. */
  list(owner: string | undefined): Promise<{ name: string; savedAt: string }[]>;
  /** Whether there was one to delete. */
  delete(owner: string | undefined, name: string): Promise<boolean>;
}

/** The engine of a job of `owner`: a page asking for a profile gets its handle in the store. */
export function withProfiles(engine: Engine, store: ProfileStore, owner: string | undefined): Engine {
  return {
    preflight: (sessionOptions, name) => engine.preflight(sessionOptions, name),
    fetch: (url, options) => engine.fetch(url, options),
    close: () => engine.close(),
    ...(engine.addressRefusal ? { addressRefusal: (url: string) => engine.addressRefusal!(url) } : {}),
    scrape: (url, options, sessionOptions, signal, access) => {
      const profile = options?.profile;
      if (!profile) return engine.scrape(url, options, sessionOptions, signal, access);
      const handle: ProfileHandle = {
        name: profile.name,
        load: () => store.load(owner, profile.name),
        ...(profile.saveChanges === false ? {} : { save: (state: ProfileState) => store.save(owner, profile.name, state) }),
      };
      return engine.scrape(url, { ...options, profileHandle: handle }, sessionOptions, signal, access);
    },
  };
}
