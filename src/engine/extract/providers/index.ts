/** The one place that turns settings into a provider: callers hold a ModelProvider and never know which. */
import { AnthropicProvider } from './anthropic.js';
import { OpenAiProvider } from './openai.js';
import type { LlmSettings, ModelProvider } from './provider.js';

export function createProvider(settings: LlmSettings): ModelProvider {
  return settings.provider === 'openai' ? new OpenAiProvider(settings) : new AnthropicProvider(settings);
}
