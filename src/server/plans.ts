/**
 * The plans' limits (docs/api.md#limits): batch scrape needs Scale or higher;
 * useProxy and solveCaptchas need a paid plan. Plans are ordered.
 */
import { PlanError } from '../api/errors.js';
import type { JobKind, JobRequest } from '../api/types.js';

export const PLANS = ['free', 'paid', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && PLANS.includes(value as Plan);
}

function atLeast(plan: Plan, needed: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(needed);
}

/** Endpoints 4 to 6 (batch scrape: start, status and result) need Scale or higher. */
export function checkKindAllowed(kind: JobKind, plan: Plan): void {
  if (kind === 'batch' && !atLeast(plan, 'scale')) {
    throw new PlanError(`batch scrape needs the scale plan or higher; this API key is on the ${plan} plan`);
  }
}

/** Session options that cost money are refused at start, before a job exists. */
export function checkRequestAllowed(request: JobRequest, plan: Plan): void {
  const session = request.sessionOptions ?? {};
  const paidOnly = [session.useProxy && 'useProxy', session.solveCaptchas && 'solveCaptchas'].filter(Boolean);
  if (paidOnly.length > 0 && !atLeast(plan, 'paid')) {
    throw new PlanError(`sessionOptions.${paidOnly.join(' and ')} ${paidOnly.length > 1 ? 'need' : 'needs'} a paid plan (paid, scale or enterprise); this API key is on the free plan`);
  }
}
