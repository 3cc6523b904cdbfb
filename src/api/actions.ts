/**
 * Page actions (Firecrawl v2's shape, plus `repeat` and `collect` on scroll): what
 * a person does on a page before it is read. Checked here, before any page is
 * read: a bad list is a UsageError (CLI exit 2, serve HTTP 400) naming the rule.
 */
import { LimitError, UsageError } from './errors.js';
import { LIMITS } from './limits.js';
import { invalidSelectors } from './selectors.js';
import { isObject, rejectUnknown, type Obj } from './validateFields.js';
import { ACTION_TYPES, PDF_PAPERS, type Action, type ActionType, type PdfPaper, type ProfileOptions } from './actionTypes.js';

export * from './actionTypes.js';

export const ACTION_LIMITS = {
  maxActions: 50,
  /** Waits of a page (wait actions and waitFor) add up to at most this. */
  maxTotalWaitMs: LIMITS.maxWaitForMs,
  /** A wait for a selector counts this long against the total (its timeout). */
  selectorWaitMs: 10_000,
  maxRepeat: 100,
  maxTextLength: 10_000,
  maxScriptLength: 100_000,
  maxKeyLength: 40,
} as const;

/** Keys Puppeteer's keyboard.press knows, beyond one character: a few names people use. */
const KEY_NAME = /^[A-Za-z0-9]+$|^.$/u;

function where(index: number, type?: string): string {
  return `actions[${index}]${type ? ` (${type})` : ''}`;
}

function str(obj: Obj, key: string, at: string, max: number, required: boolean): string | undefined {
  const value = obj[key];
  if (value === undefined) {
    if (required) throw new UsageError(`${at}: needs "${key}"`);
    return undefined;
  }
  if (typeof value !== 'string' || value === '') throw new UsageError(`${at}.${key} must be a non-empty string`);
  if (value.length > max) throw new LimitError(`${at}.${key} has ${value.length} characters, the limit is ${max}`);
  return value;
}

function selectorOf(obj: Obj, at: string, required: boolean): string | undefined {
  const selector = str(obj, 'selector', at, 1_000, required);
  if (selector !== undefined && invalidSelectors([selector]).length > 0) throw new UsageError(`${at}.selector: "${selector}" is not a valid CSS selector`);
  return selector;
}

function bool(obj: Obj, key: string, at: string): boolean | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new UsageError(`${at}.${key} must be true or false`);
  return value;
}

function int(obj: Obj, key: string, at: string, min: number, max: number): number | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new UsageError(`${at}.${key} must be an integer`);
  if (value < min || value > max) throw new LimitError(`${at}.${key} must be between ${min} and ${max} (got ${value})`);
  return value;
}

function validateAction(value: unknown, index: number): Action {
  if (!isObject(value)) throw new UsageError(`${where(index)} must be an object with a "type"`);
  const type = value.type;
  if (typeof type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`${where(index)}: unknown action type ${JSON.stringify(type)} (allowed: ${ACTION_TYPES.join(', ')})`);
  }
  const at = where(index, type);
  switch (type as ActionType) {
    case 'wait': {
      rejectUnknown(value, ['type', 'milliseconds', 'selector'], at);
      const milliseconds = int(value, 'milliseconds', at, 1, ACTION_LIMITS.maxTotalWaitMs);
      const selector = selectorOf(value, at, false);
      if ((milliseconds === undefined) === (selector === undefined)) throw new UsageError(`${at}: give exactly one of "milliseconds" and "selector"`);
      return selector !== undefined ? { type: 'wait', selector } : { type: 'wait', milliseconds: milliseconds! };
    }
    case 'click': {
      rejectUnknown(value, ['type', 'selector', 'all'], at);
      const all = bool(value, 'all', at);
      return { type: 'click', selector: selectorOf(value, at, true)!, ...(all ? { all } : {}) };
    }
    case 'write':
      rejectUnknown(value, ['type', 'text'], at);
      return { type: 'write', text: str(value, 'text', at, ACTION_LIMITS.maxTextLength, true)! };
    case 'press': {
      rejectUnknown(value, ['type', 'key'], at);
      const key = str(value, 'key', at, ACTION_LIMITS.maxKeyLength, true)!;
      if (!KEY_NAME.test(key)) throw new UsageError(`${at}.key: "${key}" is not a key name (e.g. Enter, Tab, ArrowDown, a)`);
      return { type: 'press', key };
    }
    case 'scroll': {
      rejectUnknown(value, ['type', 'direction', 'selector', 'repeat', 'collect'], at);
      const direction = value.direction;
      if (direction !== undefined && direction !== 'up' && direction !== 'down') throw new UsageError(`${at}.direction must be "up" or "down"`);
      const selector = selectorOf(value, at, false);
      const repeat = int(value, 'repeat', at, 1, ACTION_LIMITS.maxRepeat);
      const collect = bool(value, 'collect', at);
      return {
        type: 'scroll',
        direction: (direction as 'up' | 'down' | undefined) ?? 'down',
        ...(selector !== undefined ? { selector } : {}),
        ...(repeat !== undefined ? { repeat } : {}),
        ...(collect ? { collect } : {}),
      };
    }
    case 'screenshot': {
      for (const key of ['quality', 'viewport']) {
        if (value[key] !== undefined) throw new UsageError(`${at}.${key}: not supported (screenshots are PNG at the fixed viewport; fullPage takes the whole page)`);
      }
      rejectUnknown(value, ['type', 'fullPage'], at);
      return { type: 'screenshot', fullPage: bool(value, 'fullPage', at) ?? false };
    }
    case 'scrape':
      rejectUnknown(value, ['type'], at);
      return { type: 'scrape' };
    case 'executeJavascript':
      rejectUnknown(value, ['type', 'script'], at);
      return { type: 'executeJavascript', script: str(value, 'script', at, ACTION_LIMITS.maxScriptLength, true)! };
    case 'pdf': {
      rejectUnknown(value, ['type', 'landscape', 'scale', 'format'], at);
      const format = value.format;
      if (format !== undefined && !(PDF_PAPERS as readonly unknown[]).includes(format)) throw new UsageError(`${at}.format must be one of ${PDF_PAPERS.join(', ')}`);
      const scale = value.scale;
      if (scale !== undefined && (typeof scale !== 'number' || !(scale >= 0.1 && scale <= 2))) throw new UsageError(`${at}.scale must be a number from 0.1 to 2`);
      const landscape = bool(value, 'landscape', at);
      return {
        type: 'pdf',
        ...(landscape !== undefined ? { landscape } : {}),
        ...(scale !== undefined ? { scale: scale as number } : {}),
        ...(format !== undefined ? { format: format as PdfPaper } : {}),
      };
    }
  }
}

/** How long a list's waits may take: its wait actions (a selector counts its timeout) plus waitFor. */
export function totalWaitMs(actions: readonly Action[], waitFor = 0): number {
  return actions.reduce((sum, action) => sum + (action.type !== 'wait' ? 0 : action.milliseconds ?? ACTION_LIMITS.selectorWaitMs), waitFor);
}

/**
 * The actions of a request, checked: at most 50, each of a known type with what it
 * needs, and waits (with `waitFor`) adding up to at most 60 s.
 */
export function validateActions(value: unknown, field: string, waitFor = 0): Action[] {
  if (!Array.isArray(value)) throw new UsageError(`${field}.actions must be an array of actions`);
  if (value.length > ACTION_LIMITS.maxActions) throw new LimitError(`${field}.actions: ${value.length} actions given, the limit is ${ACTION_LIMITS.maxActions}`);
  const actions = value.map((action, index) => {
    try {
      return validateAction(action, index);
    } catch (err) {
      if (err instanceof UsageError) err.message = `${field}.${err.message}`;
      throw err;
    }
  });
  const total = totalWaitMs(actions, waitFor);
  if (total > ACTION_LIMITS.maxTotalWaitMs) {
    throw new LimitError(
      `${field}.actions: the waits add up to ${total} ms (waitFor and wait actions, a wait for a selector counting ${ACTION_LIMITS.selectorWaitMs} ms), the limit is ${ACTION_LIMITS.maxTotalWaitMs} ms`,
    );
  }
  return actions;
}

/** A profile's name: a file name of its own under WEBJOBS_HOME, so letters, digits, dot, dash and underscore. */
export const PROFILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

export function validateProfileName(value: unknown, field: string): string {
  if (typeof value !== 'string' || !PROFILE_NAME.test(value)) {
    throw new UsageError(`${field}: a profile name is 1 to 64 letters, digits, dots, dashes or underscores, not starting with a dot or dash`);
  }
  return value;
}

/** Firecrawl v2's profile: {name, saveChanges} (saveChanges: default true). */
export function validateProfile(value: unknown, field: string): ProfileOptions {
  if (!isObject(value)) throw new UsageError(`${field}.profile must be an object {name, saveChanges}`);
  rejectUnknown(value, ['name', 'saveChanges'], `${field}.profile`);
  const name = validateProfileName(value.name, `${field}.profile.name`);
  const saveChanges = bool(value, 'saveChanges', `${field}.profile`);
  return { name, saveChanges: saveChanges ?? true };
}
