/** `host:port` of an http(s) URL (the port only when the URL names one), or undefined. */
export function urlHost(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.port ? `${url.hostname}:${url.port}` : url.hostname;
  } catch {
    return undefined;
  }
}

/**
 * The variables of `env` that point a CLI at a server (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, a
 * gateway's `*_ENDPOINT`), each with the host it names.
 */
export function hostsOfUrlVariables(
  env: Readonly<Record<string, string | undefined>>,
): { name: string; host: string }[] {
  const found: { name: string; host: string }[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || !/(_BASE_URL|_API_BASE|_ENDPOINT|_HOST_URL)$/.test(name)) continue;
    const host = urlHost(value);
    if (host) found.push({ name, host });
  }
  return found;
}
