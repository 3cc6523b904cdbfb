/**
 * Page actions and profiles on the command line: --actions (inline JSON or a
 * file, the same actions on every page), --wait-for-selector (a wait action
 * before them), --profile (Firecrawl v2's profile, saved after each page).
 */
import { existsSync, readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { validateProfileName } from '../api/actions.js';
import { invalidSelectors } from '../api/selectors.js';
import { UsageError } from '../api/errors.js';
import type { ScrapeOptions } from '../api/types.js';

export interface ActionFlags {
  actions?: unknown[];
  waitForSelector?: string;
  profile?: string;
  saveProfile: boolean;
}

const ACTIONS_EXAMPLE = `'[{"type":"click","selector":"#more"},{"type":"scroll","repeat":5}]'`;

function parseActionsJson(text: string, where: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`${where} is not valid JSON: ${(err as Error).message}.`);
  }
  if (!Array.isArray(value)) throw new InvalidArgumentError(`${where} must hold a JSON array of actions, e.g. ${ACTIONS_EXAMPLE}.`);
  return value;
}

/** --actions: inline JSON when it looks like an array, else the path of a JSON file. */
export function parseActionsFlag(value: string): unknown[] {
  const trimmed = value.trim();
  if (trimmed.startsWith('[')) return parseActionsJson(trimmed, 'the inline JSON');
  if (!existsSync(trimmed)) throw new InvalidArgumentError(`no file named "${value}", and it is not inline JSON either (inline JSON starts with "["), e.g. ${ACTIONS_EXAMPLE}.`);
  try {
    return parseActionsJson(readFileSync(trimmed, 'utf8'), `the file ${value}`);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw err;
    throw new InvalidArgumentError(`cannot read ${value}: ${(err as Error).message}.`);
  }
}

function parseSelector(value: string): string {
  if (invalidSelectors([value]).length > 0) throw new InvalidArgumentError(`"${value}" is not a valid CSS selector.`);
  return value;
}

function parseProfile(value: string): string {
  try {
    return validateProfileName(value, '--profile');
  } catch (err) {
    throw new InvalidArgumentError(`${(err as UsageError).message.replace(/^--profile: /, '')}.`);
  }
}

/**
 * --wait-for takes a duration; given something else that parses as a CSS
 * selector, the error names --wait-for-selector.
 */
export function waitForHint(value: string): string | undefined {
  if (/^\s*\d/.test(value)) return undefined;
  return invalidSelectors([value]).length === 0 ? `--wait-for takes a duration such as 500ms or 2s; to wait for an element use --wait-for-selector '${value}'.` : undefined;
}

export function addActionOptions(cmd: Command): Command {
  return cmd
    .option('--actions <json|file>', `page actions run in order in a browser before each page is read: inline JSON or a file, e.g. ${ACTIONS_EXAMPLE}`, parseActionsFlag)
    .option('--wait-for-selector <css>', 'wait until an element matching this CSS selector is on the page before reading it (a browser renders the page)', parseSelector)
    .option('--profile <name>', "load this profile's cookies and local storage before the page, save them after (webjobs profiles lists them)", parseProfile)
    .option('--no-save-profile', 'with --profile: load the profile but do not save what changed');
}

/** The actions and profile of the flags, into `options`. */
export function applyActionFlags(flags: ActionFlags, options: ScrapeOptions): ScrapeOptions {
  const actions = [...(flags.waitForSelector ? [{ type: 'wait', selector: flags.waitForSelector }] : []), ...(flags.actions ?? [])];
  if (actions.length > 0) options.actions = actions as ScrapeOptions['actions'];
  if (flags.profile !== undefined) options.profile = { name: flags.profile, saveChanges: flags.saveProfile };
  else if (!flags.saveProfile) throw new UsageError('--no-save-profile goes with --profile NAME');
  return options;
}
