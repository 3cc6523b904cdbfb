/**
 * A signal that aborts with a TimeoutError after `ms`, for use inside
 * AbortSignal.any(). With AbortSignal.timeout() there, a hung page fetched by a
 * long-running PostgreSQL worker never timed out on Node 20 (the combined signal
 * holds its sources weakly, so a timeout signal nothing else references can be
 * collected before it fires). Here the timer holds the controller until it
 * fires; unref'd, it keeps no process alive.
 */
export function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError')), ms).unref();
  return controller.signal;
}
