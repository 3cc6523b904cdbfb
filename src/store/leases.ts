/**
 * Leases of the processes that own jobs in a WEBJOBS_HOME. A process that
 * creates or runs jobs holds a lease, one small file `<home>/leases/<id>.json`
 * saying until when it is alive, and renews it on a heartbeat (every third of
 * WEBJOBS_LEASE_SECONDS, default 30) while it lives; a job names its owner's
 * lease id. An owner whose lease has run out, or was given up, is gone, and its
 * jobs are free to take over: a process id is no proof of life (a zombie, or
 * the pid reused by another program, answers kill(pid, 0)). A process id is
 * proof of death on its own machine, though: a dead pid, or our own pid under
 * another lease (a container restarted), frees the jobs at once.
 *
 * Records written before leases (owner without `lease`) are judged as they
 * were: by their process on this machine.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../api/processes.js';
import type { JobOwner, OwnerLeases } from '../jobs/leases.js';
import { leaseMs } from '../jobs/leases.js';
import { readJson, writeJsonAtomic } from './atomicFile.js';

interface LeaseFile {
  id: string;
  pid: number;
  host: string;
  /** Date.now() after which the owner counts as gone unless it renewed. */
  expiresAt: number;
}

export class FileLeases implements OwnerLeases {
  private readonly dir: string;
  private readonly id = randomUUID();
  private held: Promise<JobOwner> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    home: string,
    private readonly ttlMs = leaseMs(),
  ) {
    this.dir = path.join(home, 'leases');
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  private async renew(): Promise<void> {
    const lease: LeaseFile = { id: this.id, pid: process.pid, host: os.hostname(), expiresAt: Date.now() + this.ttlMs };
    await writeJsonAtomic(this.file(this.id), lease);
  }

  self(): Promise<JobOwner> {
    this.held ??= (async () => {
      await fs.mkdir(this.dir, { recursive: true });
      await this.renew();
      // A renewal that fails (a full disk) is tried again on the next beat; the lease runs out only if all do.
      this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.max(500, Math.floor(this.ttlMs / 3)));
      this.timer.unref();
      await this.removeExpired();
      return { pid: process.pid, host: os.hostname(), lease: this.id };
    })().catch((err: unknown) => {
      this.held = undefined;
      throw err;
    });
    return this.held;
  }

  /** Lease files of owners long gone (crashed processes): no job needs them to be judged gone. */
  private async removeExpired(): Promise<void> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    const now = Date.now();
    for (const name of names) {
      if (!name.endsWith('.json') || name === `${this.id}.json`) continue;
      const lease = await readJson<LeaseFile>(path.join(this.dir, name)).catch(() => undefined);
      if (lease && typeof lease.expiresAt === 'number' && lease.expiresAt < now) await fs.rm(path.join(this.dir, name), { force: true });
    }
  }

  async isAlive(owner: JobOwner): Promise<boolean> {
    const here = owner.host === os.hostname();
    if (owner.lease === undefined) return !here || isProcessAlive(owner.pid);
    if (owner.lease === this.id && this.held) return true;
    // Proof of death on this machine: the pid is gone, or it is ours under another lease (a restart reusing it).
    if (here && (owner.pid === process.pid || !isProcessAlive(owner.pid))) return false;
    const lease = await readJson<LeaseFile>(this.file(owner.lease)).catch(() => undefined);
    return typeof lease?.expiresAt === 'number' && lease.expiresAt > Date.now();
  }

  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const held = this.held;
    this.held = undefined;
    if (held && (await held.catch(() => undefined))) await fs.rm(this.file(this.id), { force: true });
  }
}
