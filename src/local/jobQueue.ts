/**
 * The jobs waiting for a slot of a LocalBackend, shared fairly between tenants
 * (under `serve`, the API keys): each tenant has its own lane, first in first
 * out, and the lanes take turns (round-robin over the tenants with pending
 * work), so a key that queued a hundred jobs delays another key's one job by at
 * most one turn. A tenant may also be held to a number of running jobs
 * (`maxRunningPerTenant`), so that one key's long jobs never take every slot.
 * Jobs without a tenant (the CLI's own) share one lane and no such limit.
 */

export interface QueuedJob {
  jobId: string;
  tenant?: string;
}

/** The lane of jobs without a tenant. */
const NO_TENANT = '';

export class JobQueue {
  /** Lanes in turn order: the next job comes from the first lane that may run one; that lane then goes last. */
  private readonly lanes = new Map<string, string[]>();
  private readonly tenantOf = new Map<string, string>();

  constructor(private readonly maxRunningPerTenant = Infinity) {}

  get size(): number {
    return this.tenantOf.size;
  }

  has(jobId: string): boolean {
    return this.tenantOf.has(jobId);
  }

  push({ jobId, tenant }: QueuedJob): void {
    const lane = tenant ?? NO_TENANT;
    this.tenantOf.set(jobId, lane);
    const jobs = this.lanes.get(lane);
    if (jobs) jobs.push(jobId);
    else this.lanes.set(lane, [jobId]);
  }

  /**
   * The next job to run, given how many jobs each tenant runs now; undefined
   * when none waits, or every tenant that has some is at its limit.
   */
  next(runningOf: (tenant: string | undefined) => number): QueuedJob | undefined {
    for (const [lane, jobs] of this.lanes) {
      const tenant = lane === NO_TENANT ? undefined : lane;
      if (tenant !== undefined && runningOf(tenant) >= this.maxRunningPerTenant) continue;
      const jobId = jobs.shift()!;
      this.tenantOf.delete(jobId);
      this.lanes.delete(lane);
      if (jobs.length > 0) this.lanes.set(lane, jobs);
      return { jobId, tenant };
    }
    return undefined;
  }

  remove(jobId: string): boolean {
    const lane = this.tenantOf.get(jobId);
    if (lane === undefined) return false;
    this.tenantOf.delete(jobId);
    const jobs = this.lanes.get(lane)!;
    jobs.splice(jobs.indexOf(jobId), 1);
    if (jobs.length === 0) this.lanes.delete(lane);
    return true;
  }

  clear(): void {
    this.lanes.clear();
    this.tenantOf.clear();
  }
}
