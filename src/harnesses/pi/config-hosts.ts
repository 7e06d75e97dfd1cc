import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { urlHost } from "../../core/foundation/urls.js";

/** The part of Pi 0.73.1's `models.json` that names where each custom provider lives. */
const modelsSchema = z.object({
  providers: z.record(z.string(), z.object({ baseUrl: z.string().optional() }).passthrough()).optional(),
});

/**
 * The hosts of the providers a login's `models.json` declares (a gateway, a local model server):
 * a sandboxed turn may reach them. The file's keys are never read here, only its URLs.
 */
export async function piConfiguredHosts(home: string): Promise<string[]> {
  const text = await fs.readFile(path.join(home, "models.json"), "utf8").catch(() => undefined);
  if (text === undefined) return [];
  let parsed: z.infer<typeof modelsSchema>;
  try {
    parsed = modelsSchema.parse(JSON.parse(text));
  } catch {
    return []; // Pi itself says what is wrong with the file when it starts
  }
  return Object.values(parsed.providers ?? {})
    .map((provider) => (provider.baseUrl ? urlHost(provider.baseUrl) : undefined))
    .filter((host): host is string => host !== undefined);
}
