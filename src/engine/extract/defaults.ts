/**
 * The default models, apart from the SDKs so that the CLI's help can name them
 * without loading an SDK. For Anthropic it is the newest Sonnet the installed SDK
 * lists (the SDK marks claude-sonnet-4-5 deprecated): faithful extraction at a
 * moderate price. For OpenAI, the newest small model the installed SDK lists; a
 * local server (Ollama, vLLM, LM Studio) needs --model naming one of its own.
 * WEBJOBS_MODEL or --model override them.
 */
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_OPENAI_MODEL = 'gpt-5.4-mini';
