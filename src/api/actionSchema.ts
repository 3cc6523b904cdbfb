/**
 * Page actions and the profile as JSON Schema (for the MCP tools' arguments):
 * one object shape holding every action's fields, `type` saying which apply;
 * validateActions (actions.ts) judges each action and names what is wrong.
 */
import { ACTION_LIMITS } from './actions.js';
import { ACTION_TYPES, PDF_PAPERS, type ProfileOptions } from './actionTypes.js';
import type { JsonSchema } from './jsonSchema.js';

const actionSchema: JsonSchema = {
  type: 'object',
  description:
    'one page action: wait {milliseconds | selector}, click {selector, all}, write {text} (into the focused element; click it first), press {key}, scroll {direction, selector, repeat (scroll up to N times, each waiting for new content), collect (keep the rows a virtualized list removes)}, screenshot {fullPage}, scrape (the HTML at that moment), executeJavascript {script} (its last expression\'s value comes back), pdf {format, landscape, scale}',
  properties: {
    type: { type: 'string', enum: ACTION_TYPES },
    milliseconds: { type: 'integer', minimum: 1, maximum: ACTION_LIMITS.maxTotalWaitMs },
    selector: { type: 'string', minLength: 1 },
    all: { type: 'boolean' },
    text: { type: 'string', minLength: 1, maxLength: ACTION_LIMITS.maxTextLength },
    key: { type: 'string', minLength: 1, maxLength: ACTION_LIMITS.maxKeyLength },
    direction: { type: 'string', enum: ['up', 'down'] },
    repeat: { type: 'integer', minimum: 1, maximum: ACTION_LIMITS.maxRepeat },
    collect: { type: 'boolean' },
    fullPage: { type: 'boolean' },
    script: { type: 'string', minLength: 1, maxLength: ACTION_LIMITS.maxScriptLength },
    format: { type: 'string', enum: PDF_PAPERS },
    landscape: { type: 'boolean' },
    scale: { type: 'number', minimum: 0.1, maximum: 2 },
  },
  required: ['type'],
  additionalProperties: false,
};

export const actionsSchema: JsonSchema = {
  type: 'array',
  items: actionSchema,
  maxItems: ACTION_LIMITS.maxActions,
  description: `page actions run in order in a browser after the page loaded, before it is read (at most ${ACTION_LIMITS.maxActions}; waits, with waitFor, at most ${ACTION_LIMITS.maxTotalWaitMs / 1000} s); the record's actions field holds their screenshots, scrapes, script values and PDFs`,
};

export const profileSchema: JsonSchema = {
  type: 'object',
  description: "a named browser profile: its cookies and local storage are loaded before the page and saved after it (saveChanges, default true); one API key's profiles are its own",
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$' },
    saveChanges: { type: 'boolean', default: true },
  } satisfies Record<keyof ProfileOptions, JsonSchema>,
  required: ['name'],
  additionalProperties: false,
};
