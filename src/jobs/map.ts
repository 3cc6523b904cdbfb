/**
 * Map, written once for every back end: a site's URLs, answered at once (no job),
 * by plain HTTP through the engine's fetch (in serve, the request guard checks
 * every hop): no browser starts.
 */
import { UsageError } from '../api/errors.js';
import type { MapRequest, MapResult } from '../api/types.js';
import { validateMapRequest } from '../api/validate.js';
import { mapSite } from '../engine/crawl/map.js';
import type { Engine } from '../engine/engine.js';

export async function mapWith(engine: Engine, request: MapRequest, signal?: AbortSignal): Promise<MapResult> {
  const validated = validateMapRequest(request);
  // Answered at once, so a refused start URL is the request's fault (400), as at the other routes' start.
  const refused = await engine.addressRefusal?.(validated.url);
  if (refused) throw new UsageError(refused);
  return mapSite(validated, (url, init) => engine.fetch(url, init), signal);
}
