/**
 * The default model, apart from the SDK so that the CLI's help can name it without
 * loading the SDK. It is the newest Sonnet the installed SDK lists (the SDK marks
 * claude-sonnet-4-5 deprecated): faithful extraction at a moderate price.
 * WEBJOBS_MODEL or --model override it.
 */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
