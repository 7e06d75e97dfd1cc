import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { urlHost } from "../../core/foundation/urls.js";
import type { LoginConfiguration } from "../types.js";

/** The part of Pi 0.73.1's `models.json` that names where each custom provider lives. */
const modelsSchema = z.object({
  providers: z
    .record(z.string(), z.object({ baseUrl: z.string().optional(), apiKey: z.string().optional() }).passthrough())
    .optional(),
});

/**
 * What a login's `models.json` declares (a gateway, a local model server): the hosts of its
 * providers, which a sandboxed turn may reach, and the variables their `apiKey` names (Pi reads a
 * key from the variable of that name when there is one). The keys themselves are never read here.
 */
export async function piConfiguration(home: string): Promise<LoginConfiguration> {
  const file = path.join(home, "models.json");
  const text = await fs.readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return { hosts: [], env: [] };
  let parsed: z.infer<typeof modelsSchema>;
  try {
    parsed = modelsSchema.parse(JSON.parse(text));
  } catch {
    return { hosts: [], env: [] }; // Pi itself says what is wrong with the file when it starts
  }
  const found: LoginConfiguration = { hosts: [], env: [] };
  for (const [name, provider] of Object.entries(parsed.providers ?? {})) {
    const host = provider.baseUrl ? urlHost(provider.baseUrl) : undefined;
    if (host) found.hosts.push({ host, setting: `${file} providers.${name}.baseUrl` });
    if (provider.apiKey && /^[A-Z_][A-Z0-9_]*$/.test(provider.apiKey)) found.env.push(provider.apiKey);
  }
  return found;
}
