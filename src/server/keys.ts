/**
 * API keys of `webjobs serve`. Keys are held only as SHA-256 digests and a
 * presented key is compared with every stored digest in constant time, so
 * neither memory dumps nor response timing give a key away.
 *
 * Sources: a keys file (--keys FILE) or WEBJOBS_API_KEYS="k1:scale,k2:free".
 * Keys file, JSON:
 *   { "keys": [ { "key": "s3cret", "plan": "scale", "name": "acme" },
 *               { "sha256": "<hex digest of a key>", "plan": "free" } ] }
 * `sha256` lets the file hold no key in clear; `name` labels the key's jobs
 * (default: the first 12 hex digits of its digest).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { ConfigError } from '../api/errors.js';
import { PLANS, isPlan, type Plan } from './plans.js';

export interface ApiKey {
  /** Stable, non-secret label of the key: owns its jobs across restarts. */
  id: string;
  plan: Plan;
}

interface StoredKey extends ApiKey {
  digest: Buffer;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export class KeyRing {
  private readonly keys: StoredKey[] = [];

  get size(): number {
    return this.keys.length;
  }

  add(entry: { key?: string; sha256?: string; plan: Plan; name?: string }): void {
    const digest = entry.key !== undefined ? sha256(entry.key) : Buffer.from(entry.sha256 ?? '', 'hex');
    if (digest.length !== 32) throw new ConfigError('keys: each "sha256" must be 64 hex digits (the SHA-256 of the key)');
    const id = entry.name ?? digest.toString('hex').slice(0, 12);
    if (this.keys.some((k) => k.id === id)) throw new ConfigError(`keys: two keys are named "${id}"; names must be unique`);
    this.keys.push({ id, plan: entry.plan, digest });
  }

  /** Checks every stored digest whatever matches first, so timing says nothing about which or whether. */
  find(presented: string | undefined): ApiKey | undefined {
    if (!presented) return undefined;
    const digest = sha256(presented);
    let found: StoredKey | undefined;
    for (const key of this.keys) {
      if (timingSafeEqual(key.digest, digest) && !found) found = key;
    }
    return found ? { id: found.id, plan: found.plan } : undefined;
  }
}

function checkPlan(plan: unknown, where: string): Plan {
  if (!isPlan(plan)) throw new ConfigError(`${where}: plan must be one of ${PLANS.join(', ')} (got ${JSON.stringify(plan)})`);
  return plan;
}

/** WEBJOBS_API_KEYS: comma-separated key:plan pairs. */
export function parseKeyList(text: string, ring = new KeyRing()): KeyRing {
  for (const pair of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const colon = pair.lastIndexOf(':');
    if (colon <= 0) throw new ConfigError(`WEBJOBS_API_KEYS: "${pair.slice(0, 4)}…" is not key:plan (e.g. k1:scale,k2:free)`);
    ring.add({ key: pair.slice(0, colon), plan: checkPlan(pair.slice(colon + 1), 'WEBJOBS_API_KEYS') });
  }
  return ring;
}

export function parseKeysFile(text: string, file: string, ring = new KeyRing()): KeyRing {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const entries = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(entries)) throw new ConfigError(`${file}: expected {"keys": [{"key": "...", "plan": "scale"}, ...]}`);
  entries.forEach((entry: Record<string, unknown>, i) => {
    const where = `${file}: keys[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new ConfigError(`${where} must be an object`);
    const { key, sha256: digest, name } = entry;
    if ((typeof key !== 'string' || key === '') === (typeof digest !== 'string')) {
      throw new ConfigError(`${where} needs either "key" (a non-empty string) or "sha256", not both`);
    }
    if (name !== undefined && (typeof name !== 'string' || name === '')) throw new ConfigError(`${where}: "name" must be a non-empty string`);
    ring.add({ key: key as string | undefined, sha256: digest as string | undefined, plan: checkPlan(entry.plan, where), name: name as string | undefined });
  });
  return ring;
}

/** The keys file wins over the environment; a server without keys refuses to start. */
export async function loadKeys(keysFile: string | undefined, env: NodeJS.ProcessEnv): Promise<KeyRing> {
  let ring: KeyRing;
  if (keysFile) {
    const text = await fs.readFile(keysFile, 'utf8').catch((err: Error) => {
      throw new ConfigError(`cannot read the keys file ${keysFile}: ${err.message}`);
    });
    ring = parseKeysFile(text, keysFile);
  } else {
    ring = parseKeyList(env.WEBJOBS_API_KEYS ?? '');
  }
  if (ring.size === 0) {
    throw new ConfigError('webjobs serve needs API keys: --keys FILE or WEBJOBS_API_KEYS="key1:scale,key2:free"');
  }
  return ring;
}
