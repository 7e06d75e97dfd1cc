import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import type { LoginIdentity } from "../../core/foundation/login-model.js";

/**
 * Who a Gemini CLI home is signed in as, from non-secret files only: `.gemini/settings.json`
 * (which auth type the user chose) and `.gemini/google_accounts.json` (the Google account's email,
 * which the CLI caches at sign-in). 0.61.0 has no status command, and `oauth_creds.json` holds
 * tokens: Offrun never opens it.
 */

const settingsSchema = z.looseObject({
  security: z.looseObject({ auth: z.looseObject({ selectedType: z.string().optional() }).optional() }).optional(),
  selectedAuthType: z.string().optional(), // before settings were nested (0.1.x)
});

const accountsSchema = z.looseObject({ active: z.string().nullish() });

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
  try {
    const parsed = schema.safeParse(JSON.parse(await fs.readFile(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** `home` is the folder GEMINI_CLI_HOME points at (the CLI's state is in its `.gemini/`). */
export async function geminiIdentity(
  _binary: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
): Promise<LoginIdentity> {
  const dir = path.join(home, ".gemini");
  const settings = await readJson(path.join(dir, "settings.json"), settingsSchema);
  const selected = settings?.security?.auth?.selectedType ?? settings?.selectedAuthType;
  switch (selected) {
    case "oauth-personal": {
      const email = (await readJson(path.join(dir, "google_accounts.json"), accountsSchema))?.active ?? undefined;
      return email
        ? { signedIn: true, email, detail: "Google sign-in" }
        : { signedIn: false, detail: "Google sign-in", note: "No Google account is cached in this home." };
    }
    case "gemini-api-key":
      return env.GEMINI_API_KEY
        ? { signedIn: true, detail: "API key (GEMINI_API_KEY)" }
        : { signedIn: false, note: "settings.json selects an API key, but GEMINI_API_KEY is not set." };
    case "vertex-ai":
      return { signedIn: undefined, detail: "Vertex AI", note: "Vertex AI credentials come from Google Cloud." };
    case "compute-default-credentials":
      return { signedIn: undefined, detail: "Application Default Credentials" };
    case undefined:
      // 0.61.0 refuses to run ("Invalid auth method selected.") until an auth type is chosen.
      return { signedIn: false, note: `No auth method is selected in ${path.join(dir, "settings.json")}.` };
    default:
      return { signedIn: undefined, detail: selected };
  }
}
