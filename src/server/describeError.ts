/** Errors as `webjobs serve` answers them, whichever front end (envelope) carries them. */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DamagedRecordError, DatabaseUnavailableError, NotResumableError, SearchEngineError, StoreFullError, TooManyJobsError, UsageError, WebjobsError } from '../api/errors.js';
import { thousands } from '../api/thousands.js';

/** An error as it leaves: status, message and the code a client can rethrow it by. */
export interface DescribedError {
  status: number;
  message: string;
  code?: string;
}

/**
 * Every error of every front end in webjobs' words, with its status (and
 * Retry-After for a 429, and a 503 of the database); each front end wraps it in its own envelope. A stack
 * trace only ever goes to the log.
 */
export function describeError(
  err: FastifyError,
  req: FastifyRequest,
  reply: FastifyReply,
  bodyLimit: number,
  log: (line: string) => void,
): DescribedError {
  if (err instanceof TooManyJobsError || err instanceof DatabaseUnavailableError) void reply.header('retry-after', String(err.retryAfterSeconds));
  if (err instanceof DamagedRecordError) return { status: err.httpStatus, message: err.message, code: DamagedRecordError.code };
  if (err instanceof StoreFullError) return { status: err.httpStatus, message: err.message, code: StoreFullError.code };
  if (err instanceof NotResumableError) return { status: err.httpStatus, message: err.message, code: NotResumableError.code };
  if (err instanceof SearchEngineError) return { status: err.httpStatus, message: err.message, code: SearchEngineError.code };
  if (err instanceof WebjobsError) return { status: err.httpStatus, message: err.message };
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { status: 413, message: `request body too large: the limit is ${thousands(bodyLimit)} bytes` };
  }
  if (err.validation) {
    try {
      req.routeOptions.config.explain?.(req);
    } catch (explained) {
      if (explained instanceof UsageError) return { status: 400, message: explained.message };
    }
    return { status: 400, message: `invalid request: ${err.message}` };
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return { status: 400, message: `the request body is not valid JSON: ${err.message}` };
  }
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, message: err.message };
  log(`internal error on ${req.method} ${req.url}: ${err.stack ?? err.message}`);
  return { status: 500, message: 'internal error in webjobs serve; the server log has the details' };
}
