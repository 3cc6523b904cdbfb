/**
 * Worker threads that take one task at a time each: the HTTP engine's extraction
 * (engine/http/extractPool.ts) and serve's conversion of large stored entries
 * (server/firecrawl/documentPool.ts). A worker starts when a task finds none free
 * (`size` at most), and an idle one does not keep the process alive. A task may
 * have a time limit and an AbortSignal: its worker is terminated then (the work is
 * synchronous: nothing else would stop it), and a fresh one started when needed.
 * A worker that fails or stops fails its task.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { KeyTurns } from './keyTurns.js';

/** What a worker is sent and answers: each answer names its task by `id`. */
export interface WorkerMessage {
  id: number;
}

export interface WorkerPoolSettings {
  /** The worker's compiled file. */
  file: URL;
  size: number;
  resourceLimits: ResourceLimits;
  /** The error of a task whose worker failed (`message`: the first line of the worker's error), or stopped (undefined). */
  workerFailed(message: string | undefined): Error;
  /** Said by the promise of a task given to a closed pool, or left waiting when it closed. */
  closedMessage?: string;
  /** The error of a task whose signal aborted (default: the signal's reason). */
  aborted?(signal: AbortSignal): Error;
}

/** A task's bounds: its time once a worker has it (waiting for a free worker does not count), its job's signal. */
export interface TaskLimits {
  timeoutMs?: number;
  /** The error of a task that took `timeoutMs`. */
  timedOut?: () => Error;
  signal?: AbortSignal;
  /** Memory moved to the worker with the task, not copied. */
  transfer?: ArrayBuffer[];
  /**
   * Whose task it is (serve's API key): a free worker takes the first waiting task of the key served
   * longest ago, so that one key's batch never holds every worker from the others (tasks without a key
   * share one turn).
   */
  key?: string;
}

interface Pending<Task, Reply> {
  task: Task;
  limits: TaskLimits;
  resolve(reply: Reply): void;
  reject(err: Error): void;
}

interface Slot<Task, Reply> {
  worker: Worker;
  busy?: Pending<Task, Reply>;
  timer?: NodeJS.Timeout;
  onAbort?: () => void;
}

export class WorkerPool<Task extends WorkerMessage, Reply extends WorkerMessage> {
  private readonly slots: Slot<Task, Reply>[] = [];
  /** Tasks waiting for a worker, taken in turn per key (keyTurns.ts). */
  private readonly queue = new KeyTurns<Pending<Task, Reply>>((pending) => pending.limits.key ?? '');
  private nextId = 1;
  private closed = false;

  private readonly settings: Required<WorkerPoolSettings>;

  constructor(settings: WorkerPoolSettings) {
    this.settings = { closedMessage: 'the worker pool is closed', aborted: (signal) => (signal.reason instanceof Error ? signal.reason : new Error('the task was stopped')), ...settings };
  }

  /** The worker's answer to `task` (given its id here), as it sent it: an answer that reports an error included. */
  run(task: Omit<Task, 'id'>, limits: TaskLimits = {}): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error(this.settings.closedMessage));
    return new Promise((resolve, reject) => {
      if (limits.signal?.aborted) return reject(this.settings.aborted(limits.signal));
      this.queue.push({ task: { ...task, id: this.nextId++ } as Task, limits, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts a worker now if none is free, so that it loads while its first task is being prepared. */
  warm(): void {
    if (this.closed || this.slots.length >= this.settings.size || this.slots.some((slot) => !slot.busy)) return;
    this.spawn();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.busy) ?? (this.slots.length < this.settings.size ? this.spawn() : undefined);
      if (!slot) return;
      const pending = this.queue.next()!;
      if (pending.limits.signal?.aborted) {
        pending.reject(this.settings.aborted(pending.limits.signal));
        continue;
      }
      this.assign(slot, pending);
    }
  }

  private spawn(): Slot<Task, Reply> {
    const worker = new Worker(this.settings.file, { resourceLimits: this.settings.resourceLimits });
    const slot: Slot<Task, Reply> = { worker };
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const pending = slot.busy;
      if (!pending || pending.task.id !== reply.id) return;
      this.finish(slot);
      pending.resolve(reply);
      this.dispatch();
    });
    const fail = (message: string | undefined) => {
      this.drop(slot)?.reject(this.settings.workerFailed(message));
      this.dispatch();
    };
    worker.on('error', (err) => fail(err.message.split('\n')[0]!));
    worker.on('exit', () => fail(undefined));
    this.slots.push(slot);
    return slot;
  }

  private assign(slot: Slot<Task, Reply>, pending: Pending<Task, Reply>): void {
    slot.busy = pending;
    slot.worker.ref();
    const stop = (err: Error) => {
      this.drop(slot);
      void slot.worker.terminate();
      pending.reject(err);
      this.dispatch();
    };
    const { timeoutMs, timedOut, signal } = pending.limits;
    if (timeoutMs !== undefined) slot.timer = setTimeout(() => stop(timedOut?.() ?? new Error(`a worker took more than ${timeoutMs} ms`)), timeoutMs);
    if (signal) {
      slot.onAbort = () => stop(this.settings.aborted(signal));
      signal.addEventListener('abort', slot.onAbort, { once: true });
    }
    slot.worker.postMessage(pending.task, pending.limits.transfer ?? []);
  }

  /** The slot is free again: its timer and abort listener go, and an idle worker does not keep the process alive. */
  private finish(slot: Slot<Task, Reply>): void {
    clearTimeout(slot.timer);
    if (slot.onAbort) slot.busy?.limits.signal?.removeEventListener('abort', slot.onAbort);
    slot.busy = undefined;
    slot.onAbort = undefined;
    slot.worker.unref();
  }

  /**
   * Takes a worker out of the pool (it failed, or is being terminated) and returns the task it held, for
   * the caller to settle; undefined when it was out already.
   */
  private drop(slot: Slot<Task, Reply>): Pending<Task, Reply> | undefined {
    const index = this.slots.indexOf(slot);
    if (index === -1) return undefined;
    this.slots.splice(index, 1);
    const pending = slot.busy;
    this.finish(slot);
    slot.worker.removeAllListeners('exit');
    slot.worker.removeAllListeners('message');
    return pending;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.takeAll()) pending.reject(new Error(this.settings.closedMessage));
    const slots = [...this.slots];
    for (const slot of slots) this.drop(slot)?.reject(new Error(this.settings.closedMessage));
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }
}
