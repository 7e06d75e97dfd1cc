/**
 * The variables multi-provider CLIs (Pi, OpenCode) read a provider's key or endpoint from, by
 * the providers' own names: what such a CLI needs of the environment inside the sandbox.
 */
export const PROVIDER_VARIABLES = [
  "ANTHROPIC_*",
  "OPENAI_*",
  "GEMINI_*",
  "GOOGLE_*",
  "OPENROUTER_*",
  "GROQ_*",
  "XAI_*",
  "MISTRAL_*",
  "CEREBRAS_*",
  "DEEPSEEK_*",
  "ZAI_*",
  "AZURE_OPENAI_*",
  "OLLAMA_*",
] as const;
