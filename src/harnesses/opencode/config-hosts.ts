import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { urlHost } from "../../core/foundation/urls.js";
import type { LoginConfiguration } from "../types.js";

/** The part of OpenCode 1.18.33's config that says where each provider lives. */
const configSchema = z.object({
  provider: z
    .record(
      z.string(),
      z
        .object({
          options: z.object({ baseURL: z.string().optional(), apiKey: z.string().optional() }).passthrough().optional(),
        })
        .passthrough(),
    )
    .optional(),
});

/** The global config files OpenCode reads from its config folder, in its own order of merging. */
const CONFIG_FILES = ["config.json", "opencode.json", "opencode.jsonc"];

/**
 * The config folder of a login whose data home is `home`: an added login keeps it in
 * `<home>/config/opencode` (index.ts), the Default login in the user's XDG_CONFIG_HOME.
 */
export function opencodeConfigFolder(home: string, env: NodeJS.ProcessEnv): string {
  const userHome = env.HOME || os.homedir();
  const defaultData = env.XDG_DATA_HOME || path.join(userHome, ".local", "share");
  if (path.resolve(home) !== path.resolve(defaultData)) return path.join(home, "config", "opencode");
  return path.join(env.XDG_CONFIG_HOME || path.join(userHome, ".config"), "opencode");
}

/**
 * What a login's OpenCode config declares (a gateway, a local model server): the hosts of its
 * providers' `options.baseURL`, which a sandboxed turn may reach, and the variables that an
 * `apiKey` of the form `{env:NAME}` names. Read from the login's config folder, from the file
 * OPENCODE_CONFIG names and from OPENCODE_CONFIG_CONTENT, all of them the user's, never the
 * worktree's `opencode.json`. No key is read here.
 */
export async function opencodeConfiguration(home: string, env: NodeJS.ProcessEnv): Promise<LoginConfiguration> {
  const folder = opencodeConfigFolder(home, env);
  const sources: { setting: string; text: string | undefined }[] = await Promise.all(
    [...CONFIG_FILES.map((name) => path.join(folder, name)), ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : [])].map(
      async (file) => ({ setting: file, text: await fs.readFile(file, "utf8").catch(() => undefined) }),
    ),
  );
  if (env.OPENCODE_CONFIG_CONTENT)
    sources.push({ setting: "OPENCODE_CONFIG_CONTENT", text: env.OPENCODE_CONFIG_CONTENT });
  const found: LoginConfiguration = { hosts: [], env: [] };
  for (const { setting, text } of sources) {
    const parsed = text === undefined ? undefined : parseConfig(text);
    for (const [name, provider] of Object.entries(parsed?.provider ?? {})) {
      const host = provider.options?.baseURL ? urlHost(provider.options.baseURL) : undefined;
      if (host) found.hosts.push({ host, setting: `${setting} provider.${name}.options.baseURL` });
      const variable = /^\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(provider.options?.apiKey ?? "")?.[1];
      if (variable) found.env.push(variable);
    }
  }
  return found;
}

/** A config file's providers, or undefined when it is not one OpenCode would read (it says why itself). */
function parseConfig(text: string): z.infer<typeof configSchema> | undefined {
  try {
    const parsed = configSchema.safeParse(JSON.parse(withoutComments(text)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** JSONC to JSON: comments outside strings and commas before a closing bracket go. */
export function withoutComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (char === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close === -1 ? text.length : close + 1;
    } else out += char;
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/** The index just past the string literal that starts at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}
