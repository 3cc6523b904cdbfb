/**
 * linkedom's nodes with their event listeners' registry made when a listener is first added, not with the
 * node. linkedom's EventTarget constructor puts every node it makes (element, text, attribute) into one
 * WeakMap with a Map of its own; the extraction adds no listener, and on the 181 benchmark pages those
 * entries were 12% of its CPU, and much of the garbage collector's 17% (a WeakMap's entries are
 * ephemerons, slow to collect).
 *
 * The registry is linkedom's own WeakMap, found by watching the one `set` its EventTarget constructor
 * makes; an own `set` on that one map then makes nothing, and addEventListener makes the entry first.
 * linkedom's dispatchEvent already passes over a node without an entry. Should linkedom change so that
 * the map is not found as expected, nothing is patched.
 */
type Registry = WeakMap<object, Map<string, unknown>>;

interface EventTargetClass {
  new (): object;
  prototype: {
    addEventListener(this: object, ...args: unknown[]): void;
    removeEventListener(this: object, ...args: unknown[]): void;
  };
}

/** linkedom's listener registry: the WeakMap that `new EventTarget()` sets, when that is all it does. */
function registryOf(EventTarget: EventTargetClass): Registry | undefined {
  const ownSet = WeakMap.prototype.set;
  const seen: WeakMap<object, unknown>[] = [];
  WeakMap.prototype.set = function (this: WeakMap<object, unknown>, key: object, value: unknown) {
    seen.push(this);
    return ownSet.call(this, key, value);
  };
  let target: object;
  try {
    target = new EventTarget();
  } finally {
    WeakMap.prototype.set = ownSet;
  }
  const [registry] = seen;
  return seen.length === 1 && registry!.get(target) instanceof Map ? (registry as Registry) : undefined;
}

/** Makes linkedom's listener registry lazy (once per thread, on the EventTarget of 'linkedom/worker'). */
export function listenersOnDemand(EventTarget: EventTargetClass): void {
  const registry = registryOf(EventTarget);
  if (!registry) return;
  const ownSet = WeakMap.prototype.set;
  Object.defineProperty(registry, 'set', { configurable: true, value: () => registry });
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  const removeListener = proto.removeEventListener;
  Object.defineProperty(proto, 'addEventListener', {
    configurable: true,
    writable: true,
    value(this: object, ...args: unknown[]) {
      if (!registry.has(this)) ownSet.call(registry, this, new Map());
      add.apply(this, args);
    },
  });
  Object.defineProperty(proto, 'removeEventListener', {
    configurable: true,
    writable: true,
    value(this: object, ...args: unknown[]) {
      if (registry.has(this)) removeListener.apply(this, args);
    },
  });
}
