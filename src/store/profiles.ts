/**
 * Profiles on this machine: one JSON file each under WEBJOBS_HOME/profiles, in a
 * folder of its owner's (the command line's own, or one per API key of serve,
 * named by a digest of the key's id), readable by this user alone (folders 0700,
 * files 0600). A file is written whole or not at all.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { ProfileState } from '../api/actionTypes.js';
import { PROFILE_NAME } from '../api/actions.js';
import type { ProfileStore } from '../jobs/profiles.js';
import { writeError } from './atomicFile.js';

export class FileProfiles implements ProfileStore {
  private readonly root: string;

  constructor(home: string) {
    this.root = path.join(home, 'profiles');
  }

  private dir(owner: string | undefined): string {
    return path.join(this.root, owner === undefined ? 'local' : `key-${createHash('sha256').update(owner).digest('hex').slice(0, 32)}`);
  }

  private file(owner: string | undefined, name: string): string {
    if (!PROFILE_NAME.test(name)) throw new Error(`not a profile name: ${name}`);
    return path.join(this.dir(owner), `${name}.json`);
  }

  async load(owner: string | undefined, name: string): Promise<ProfileState | undefined> {
    const text = await fs.readFile(this.file(owner, name), 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (text === undefined) return undefined;
    try {
      const state = JSON.parse(text) as ProfileState;
      return Array.isArray(state.cookies) && typeof state.origins === 'object' ? state : undefined;
    } catch {
      // A file cut short (a full disk when it was written): the profile starts afresh.
      return undefined;
    }
  }

  async save(owner: string | undefined, name: string, state: ProfileState): Promise<void> {
    const file = this.file(owner, name);
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.writeFile(tmp, JSON.stringify(state), { mode: 0o600 });
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw writeError(err, file);
    }
  }

  async list(owner: string | undefined): Promise<{ name: string; savedAt: string }[]> {
    const dir = this.dir(owner);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    const out: { name: string; savedAt: string }[] = [];
    for (const entry of names.sort()) {
      if (!entry.endsWith('.json') || !PROFILE_NAME.test(entry.slice(0, -5))) continue;
      const stat = await fs.stat(path.join(dir, entry)).catch(() => undefined);
      if (stat) out.push({ name: entry.slice(0, -5), savedAt: stat.mtime.toISOString() });
    }
    return out;
  }

  async delete(owner: string | undefined, name: string): Promise<boolean> {
    return fs.rm(this.file(owner, name)).then(
      () => true,
      (err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return false;
        throw err;
      },
    );
  }
}
