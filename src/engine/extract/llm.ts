/**
 * Which model server an extract job talks to, and how: the provider (from the
 * request, else WEBJOBS_EXTRACT_PROVIDER, else the one whose key is set,
 * Anthropic first), its key and endpoint as its SDK reads them, the model, and
 * the retries and time allowed per call.
 */
import { ConfigError, UsageError } from '../../api/errors.js';
import { DEFAULT_MODEL, DEFAULT_OPENAI_MODEL } from './defaults.js';
import { excerpt, LlmError, PROVIDER_NAMES, type LlmSettings, type ProviderName } from './providers/provider.js';
import { quoted } from '../../api/quote.js';

export { DEFAULT_MODEL, excerpt, LlmError, type LlmSettings };
const DEFAULT_MAX_RETRIES = 4;
const DEFAULT_TIMEOUT_MS = 120_000;

/** What each provider reads from the environment, as its SDK does. */
const PROVIDER_ENV: Record<ProviderName, { key: string; baseURL: string; model: string; keyHint: string }> = {
  anthropic: { key: 'ANTHROPIC_API_KEY', baseURL: 'ANTHROPIC_BASE_URL', model: DEFAULT_MODEL, keyHint: 'get one at https://console.anthropic.com/' },
  openai: {
    key: 'OPENAI_API_KEY',
    baseURL: 'OPENAI_BASE_URL',
    model: DEFAULT_OPENAI_MODEL,
    keyHint: 'for a local server that needs none, any value, e.g. OPENAI_API_KEY=ollama with OPENAI_BASE_URL=http://localhost:11434/v1',
  },
};

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  return n;
}

function isProvider(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

/** Throws the UsageError that refuses a provider name webjobs does not know. */
export function checkProviderName(name: string, where: string): ProviderName {
  if (!isProvider(name)) throw new UsageError(`${where}: unknown model provider ${quoted(name)} (use ${PROVIDER_NAMES.join(' or ')})`);
  return name;
}

const keyOf = (env: NodeJS.ProcessEnv, provider: ProviderName) => env[PROVIDER_ENV[provider].key]?.trim() || undefined;

/** The provider used when a request names none: WEBJOBS_EXTRACT_PROVIDER, else the first whose key is set. */
function defaultProvider(env: NodeJS.ProcessEnv): ProviderName | undefined {
  const configured = env.WEBJOBS_EXTRACT_PROVIDER?.trim();
  if (configured) {
    if (!isProvider(configured)) throw new ConfigError(`WEBJOBS_EXTRACT_PROVIDER must be ${PROVIDER_NAMES.join(' or ')}, got "${configured}"`);
    return configured;
  }
  return PROVIDER_NAMES.find((name) => keyOf(env, name) !== undefined);
}

export interface ModelChoice {
  provider?: string;
  model?: string;
}

/**
 * The settings of one job's model calls. Throws a ConfigError (exit 2, HTTP 400)
 * when no provider has a key, or the chosen one has none; a UsageError for a
 * provider name webjobs does not know. WEBJOBS_MODEL is the default provider's
 * default model; a request that names another provider gets that one's default.
 */
export function llmSettings(env: NodeJS.ProcessEnv, choice: ModelChoice = {}): LlmSettings {
  const requested = choice.provider === undefined ? undefined : checkProviderName(choice.provider, 'provider');
  const fallback = defaultProvider(env);
  const provider = requested ?? fallback;
  if (!provider) {
    throw new ConfigError(
      'extract needs a model: set ANTHROPIC_API_KEY (Claude, https://console.anthropic.com/) or OPENAI_API_KEY ' +
        '(OpenAI, or with OPENAI_BASE_URL any server that speaks its Chat Completions API: Ollama, vLLM, LM Studio, LiteLLM)',
    );
  }
  const names = PROVIDER_ENV[provider];
  const apiKey = keyOf(env, provider);
  if (!apiKey) throw new ConfigError(`extract with the ${provider} provider needs ${names.key} (${names.keyHint})`);
  const configuredModel = provider === fallback ? env.WEBJOBS_MODEL?.trim() || undefined : undefined;
  return {
    provider,
    apiKey,
    baseURL: env[names.baseURL]?.trim() || undefined,
    model: choice.model ?? configuredModel ?? names.model,
    maxRetries: positiveInt(env, 'WEBJOBS_LLM_MAX_RETRIES', DEFAULT_MAX_RETRIES),
    timeoutMs: positiveInt(env, 'WEBJOBS_LLM_TIMEOUT_MS', DEFAULT_TIMEOUT_MS),
  };
}
