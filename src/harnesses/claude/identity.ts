import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import type { LoginIdentity } from "../../core/foundation/login-model.js";
import { describeError } from "../../core/foundation/errors.js";
import type { ProcessRunner } from "../../core/foundation/runner.js";

/**
 * Who is signed in to a Claude Code home, from `claude auth status` and `.claude.json`.
 * Never opens `.credentials.json` or the keychain: the CLI reads those itself.
 */

const STATUS_TIMEOUT_MS = 10_000;

/**
 * `claude auth status` (JSON is its default) as printed by 2.1.332. Exit 0 when signed in, 1 when
 * not, with the same JSON on stdout either way. `authMethod` is "claude.ai" for a subscription
 * login, "api_key" (with `apiKeySource`), "oauth_token" (CLAUDE_CODE_OAUTH_TOKEN) or "none".
 */
const authStatusSchema = z.looseObject({
  loggedIn: z.boolean(),
  authMethod: z.string().optional(),
  apiKeySource: z.string().nullish(),
  email: z.string().nullish(),
  orgName: z.string().nullish(),
  subscriptionType: z.string().nullish(),
});
type AuthStatus = z.infer<typeof authStatusSchema>;

/** The part of `.claude.json` that names the account (written by the CLI at sign-in; holds no token). */
const globalConfigSchema = z.looseObject({
  oauthAccount: z
    .looseObject({ emailAddress: z.string().optional(), organizationName: z.string().nullish() })
    .nullish(),
});

/**
 * Where the CLI keeps `.claude.json`: inside CLAUDE_CONFIG_DIR when it is set, otherwise in
 * $HOME itself, beside (not inside) `~/.claude` (checked on Linux with 2.1.332).
 */
export function claudeGlobalConfigFile(env: NodeJS.ProcessEnv): string {
  const dir = env.CLAUDE_CONFIG_DIR || env.HOME || os.homedir();
  return path.join(dir, ".claude.json");
}

/** The signed-in email from `.claude.json`, or undefined (no file, no sign-in, unreadable). */
export async function readClaudeEmail(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const text = await fs.readFile(claudeGlobalConfigFile(env), "utf8");
    const parsed = globalConfigSchema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.oauthAccount?.emailAddress ?? undefined) : undefined;
  } catch {
    return undefined;
  }
}

/** "Claude Max · Acme", "API key (ANTHROPIC_API_KEY)", ...: how the login signs its requests. */
function describeAuth(status: AuthStatus): string | undefined {
  switch (status.authMethod) {
    case "claude.ai": {
      const plan = status.subscriptionType
        ? `Claude ${status.subscriptionType.charAt(0).toUpperCase()}${status.subscriptionType.slice(1)}`
        : "Claude subscription";
      return status.orgName ? `${plan} · ${status.orgName}` : plan;
    }
    case "api_key":
      return status.apiKeySource ? `API key (${status.apiKeySource})` : "API key";
    case "oauth_token":
      return "CLAUDE_CODE_OAUTH_TOKEN";
    case undefined:
    case "none":
      return undefined;
    default:
      return status.authMethod;
  }
}

/**
 * `env` is the complete environment of the login (CLAUDE_CONFIG_DIR set for an added one). An
 * API key or CLAUDE_CODE_OAUTH_TOKEN in it counts as signed in, as it does for the CLI.
 */
export async function claudeIdentity(
  binary: string | undefined,
  env: NodeJS.ProcessEnv,
  home: string,
  runner: ProcessRunner,
): Promise<LoginIdentity> {
  const fileEmail = await readClaudeEmail(env);
  const withEmail = (identity: LoginIdentity): LoginIdentity => {
    const email = identity.email ?? fileEmail;
    return email === undefined ? identity : { ...identity, email };
  };
  if (!binary) {
    return withEmail({ signedIn: undefined, note: "Claude Code is not installed, so its login state is unknown." });
  }
  let result;
  try {
    result = await runner.run(
      {
        file: binary,
        args: ["auth", "status", "--json"],
        cwd: os.tmpdir(),
        // No update checks or telemetry for a status question.
        env: { ...env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      },
      { timeoutMs: STATUS_TIMEOUT_MS },
    );
  } catch (error) {
    return withEmail({ signedIn: undefined, note: `Could not run ${binary}: ${describeError(error)}` });
  }
  if (result.timedOut) {
    return withEmail({ signedIn: undefined, note: `\`claude auth status\` did not answer within 10 s (${home}).` });
  }
  const status = parseAuthStatus(result.stdout);
  if (!status) {
    const said = (result.stderr || result.stdout).trim().split("\n").slice(-1)[0] ?? "";
    return withEmail({
      signedIn: undefined,
      note: `\`claude auth status\` exited ${result.exitCode ?? "abnormally"} without its JSON: ${said}`,
    });
  }
  const detail = describeAuth(status);
  if (!status.loggedIn) {
    const other = await otherAuth(env);
    // Signed in by other means than `auth status` knows: "signed out" needs a definite answer.
    if (other) return withEmail({ signedIn: undefined, detail: other, note: `authenticates with ${other}` });
  }
  return withEmail({
    signedIn: status.loggedIn,
    ...(status.email ? { email: status.email } : {}),
    ...(detail ? { detail } : {}),
  });
}

/**
 * Ways Claude Code authenticates that `claude auth status` (2.1.332) reports as "none": a
 * gateway's bearer token, a cloud provider, or an apiKeyHelper script in the home's settings.
 */
async function otherAuth(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.ANTHROPIC_AUTH_TOKEN) return "ANTHROPIC_AUTH_TOKEN";
  if (env.CLAUDE_CODE_USE_BEDROCK) return "Amazon Bedrock";
  if (env.CLAUDE_CODE_USE_VERTEX) return "Google Vertex AI";
  const dir = env.CLAUDE_CONFIG_DIR || path.join(env.HOME || os.homedir(), ".claude");
  try {
    const settings = JSON.parse(await fs.readFile(path.join(dir, "settings.json"), "utf8")) as unknown;
    if (typeof settings === "object" && settings !== null && "apiKeyHelper" in settings) return "apiKeyHelper";
  } catch {
    // no settings file, or not JSON: nothing else to go on
  }
  return undefined;
}

function parseAuthStatus(stdout: string): AuthStatus | undefined {
  // The JSON is the whole of stdout; notices such as "Additional CA cert(s)" go to stderr.
  const start = stdout.indexOf("{");
  if (start < 0) return undefined;
  try {
    const parsed = authStatusSchema.safeParse(JSON.parse(stdout.slice(start)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
