/**
 * A signal that aborts with a TimeoutError after `ms`, or with `parent`'s reason when `parent` (a job's signal)
 * aborts first. With AbortSignal.timeout() inside AbortSignal.any(), a hung page fetched by a long-running
 * PostgreSQL worker never timed out on Node 20 (the combined signal holds its sources weakly, so a timeout
 * signal nothing else references can be collected before it fires). Here the timer holds the controller until
 * it fires; unref'd, it keeps no process alive.
 *
 * Not AbortSignal.any([timeout, parent]) either: Node registers each call on the parent (a FinalizationRegistry
 * entry, two WeakRefs and an object) for as long as the parent lives, so a crawl's signal kept one per request
 * until the crawl ended: 75,136 of them, about 15 MB of the heap, at 70,000 pages (issue 59). A parent here has
 * one listener, and knows each child until the child's timer fires: the requests of the last `ms`.
 */
export function timeoutSignal(ms: number, parent?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  if (parent?.aborted) {
    controller.abort(parent.reason);
    return controller.signal;
  }
  const children = parent ? childrenOf(parent) : undefined;
  children?.add(controller);
  setTimeout(() => {
    children?.delete(controller);
    controller.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError'));
  }, ms).unref();
  return controller.signal;
}

/** Each parent's children not timed out yet, told of its abort by the one listener it has. */
const families = new WeakMap<AbortSignal, Set<AbortController>>();

function childrenOf(parent: AbortSignal): Set<AbortController> {
  let children = families.get(parent);
  if (!children) {
    const family = new Set<AbortController>();
    children = family;
    families.set(parent, family);
    parent.addEventListener(
      'abort',
      () => {
        for (const child of family) child.abort(parent.reason);
        family.clear();
      },
      { once: true },
    );
  }
  return children;
}
