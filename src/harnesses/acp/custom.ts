import path from "node:path";
import * as z from "zod";
import { DEFAULT_INITIALIZE_TIMEOUT_MS, type AcpAgentDefinition } from "./definition.js";
import { OffrunError } from "../../core/foundation/errors.js";
import { offrunHome } from "../../core/foundation/paths.js";
import { loadProjectSettings } from "../../core/foundation/project.js";
import { explainZodError, readJsonFile } from "../../core/foundation/store.js";

/**
 * Custom ACP agents, declared by the user in `~/.offrun/harnesses.json` ({"harnesses": [...]})
 * and by a project in `.offrun/config.json` under `harnesses` (same entries). Each entry becomes
 * an ACP harness (src/harnesses/acp). A project file can be cloned from anyone, so entries are
 * strict: unknown keys, ids that could escape a folder or shadow another harness, relative
 * commands and secret-looking variables are refused, and nothing runs until a user picks the id.
 */

export const USER_HARNESSES_FILE = "harnesses.json";

/** Ids that are folder names Offrun creates (accounts/<id>/) and OFFRUN_<ID>_BIN names: a short slug. */
const ID = /^[a-z][a-z0-9-]{0,30}[a-z0-9]$/;
/** Names JavaScript objects already carry, refused even though they match the slug pattern. */
const RESERVED_IDS = new Set(["constructor", "prototype", "default", "custom", "all", "none"]);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Offrun keeps no secret (as for accounts.json): a key belongs in the agent's own login.
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
/** No control characters (a newline in a command or a name would garble logs and error messages). */
const hasNoControl = (value: string) => ![...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const text = (max: number) =>
  z
    .string()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine(hasNoControl, "must not contain control characters");

const harnessEntrySchema = z
  .object({
    id: z
      .string()
      .regex(ID, "use 2-32 lower-case letters, digits and '-', starting with a letter (e.g. \"kiro\")")
      .refine((id) => !RESERVED_IDS.has(id), "is a reserved word; pick another id"),
    displayName: text(60).optional(),
    command: text(4096).refine(
      (command) => !command.includes("/") || path.isAbsolute(command),
      'must be a program name found on PATH ("kiro-cli") or an absolute path ("/opt/kiro/bin/kiro-cli"), not a relative path',
    ),
    args: z.array(text(4096)).max(64, "must have at most 64 arguments").default([]),
    env: z
      .record(z.string(), z.string().refine(hasNoControl, "must not contain control characters"))
      // Checked here rather than as the record's key schema, so the message names the variable.
      .superRefine((env, context) => {
        for (const name of Object.keys(env)) {
          if (!ENV_NAME.test(name)) {
            context.addIssue({ code: "custom", path: [name], message: "is not an environment variable name" });
          } else if (SECRET_NAME.test(name)) {
            context.addIssue({
              code: "custom",
              path: [name],
              message: "looks like a secret; Offrun stores none: sign in with the agent's own login instead",
            });
          }
        }
      })
      .default({}),
    homeVariable: z
      .string()
      .regex(ENV_NAME, 'is not an environment variable name (e.g. "KIRO_HOME")')
      .refine((name) => name !== "PATH", "must not be PATH")
      .optional(),
    defaultHome: text(4096)
      .refine((home) => home.startsWith("~/") || path.isAbsolute(home), 'must be an absolute path or start with "~/"')
      .optional(),
    modes: z
      .object({ build: text(100).optional(), plan: text(100).optional() })
      // Only Build and Planner exist in Offrun; zod names any other key it finds.
      .strict()
      .default({}),
    installHint: text(500).optional(),
    loginHint: text(500).optional(),
    initializeTimeoutSeconds: z.number().positive().max(600, "must be at most 600 seconds").optional(),
    /** Hosts a sandboxed turn may reach: the agent's API (`api.example.com`, `*.example.com`, `host:port`). */
    hosts: z
      .array(text(253).regex(/^[A-Za-z0-9.*:[\]-]+$/, "must be a host name, `*.domain` or `host:port`"))
      .max(50)
      .default([]),
    /**
     * The folders of the login's home the agent keeps its state in (`~/.kiro`), which a sandboxed
     * turn may write; without them an agent whose home is the user's own writes nothing there.
     */
    stateFolders: z
      .array(
        text(4096).refine(
          (folder) => folder.startsWith("~/") && folder.length > 2 && !folder.split("/").includes(".."),
          'must be a folder inside the login\'s home, written "~/.agent-state"',
        ),
      )
      .max(20)
      .optional(),
  })
  // An unknown key is most often a typo ("comand"): zod names it.
  .strict();
export type CustomHarnessEntry = z.infer<typeof harnessEntrySchema>;

const harnessListSchema = z.array(harnessEntrySchema).max(50, "must list at most 50 harnesses");
const userFileSchema = z.object({ harnesses: harnessListSchema }).strict();
/** The project config passes unknown keys through (src/core/foundation/model.ts); only `harnesses` is read here. */
const projectFileSchema = z.object({ harnesses: harnessListSchema.optional() }).passthrough();

/** An entry as the ACP harness takes it, with Offrun's defaults filled in. */
export function toAcpDefinition(entry: CustomHarnessEntry): AcpAgentDefinition {
  return {
    id: entry.id,
    displayName: entry.displayName ?? entry.id,
    command: entry.command,
    args: entry.args,
    env: entry.env,
    homeVariable: entry.homeVariable ?? "HOME",
    ...(entry.defaultHome ? { defaultHome: entry.defaultHome } : {}),
    modes: entry.modes,
    installHint:
      entry.installHint ?? `Install ${entry.command} and make sure it is on PATH, or give its absolute path.`,
    initializeTimeoutMs:
      entry.initializeTimeoutSeconds === undefined
        ? DEFAULT_INITIALIZE_TIMEOUT_MS
        : entry.initializeTimeoutSeconds * 1000,
    authMethodIds: [],
    hosts: entry.hosts,
    ...(entry.stateFolders ? { stateFolders: entry.stateFolders } : {}),
    ...(entry.loginHint ? { loginHint: entry.loginHint } : {}),
  };
}

interface Source {
  file: string;
  entries: CustomHarnessEntry[];
}

/** Refuses an id that a built-in or an earlier entry already has, naming both places. */
function checkIds(sources: Source[], builtinIds: readonly string[]): void {
  const seen = new Map<string, string>(builtinIds.map((id) => [id, "Offrun's built-in harnesses"]));
  for (const { file, entries } of sources) {
    entries.forEach((entry, index) => {
      const earlier = seen.get(entry.id);
      if (earlier !== undefined) {
        throw new OffrunError(
          "invalid_file",
          `${file} is not valid:\n  harnesses.${index}.id: '${entry.id}' is already taken by ${earlier}\nGive this harness another id.`,
        );
      }
      seen.set(entry.id, file);
    });
  }
}

/** Whether the user trusted the repository's settings as the file has them (its raw JSON, as `offrun trust` hashed it). */
/**
 * The custom ACP agents of this user and (when given) this project, user's first; a project's only
 * when the user trusted the repository's settings (`offrun trust`). Missing files
 * mean none; an invalid file throws `invalid_file` naming the file, the field and the fix.
 */
export async function loadCustomHarnessDefinitions(options: {
  projectRoot?: string;
  env?: NodeJS.ProcessEnv;
  builtinIds: readonly string[];
}): Promise<AcpAgentDefinition[]> {
  const userFile = path.join(offrunHome(options.env), USER_HARNESSES_FILE);
  const sources: Source[] = [];
  const user = await readJsonFile(
    userFile,
    userFileSchema,
    `Fix ${USER_HARNESSES_FILE} (format: {"harnesses": [{"id", "command", "args", ...}]}) or move it aside.`,
  );
  if (user) sources.push({ file: userFile, entries: user.harnesses });
  if (options.projectRoot !== undefined) {
    // A mistake is named whether or not the repository is trusted; its agents are commands it
    // would run, used only once the user trusted its settings.
    const settings = await loadProjectSettings(options.projectRoot);
    if (settings.raw.harnesses !== undefined) {
      const parsed = projectFileSchema.safeParse(settings.raw);
      if (!parsed.success) {
        const fix = "Fix the `harnesses` entries of this file.";
        throw new OffrunError("invalid_file", explainZodError(settings.file, parsed.error, fix));
      }
      if (settings.trust.trusted) sources.push({ file: settings.file, entries: parsed.data.harnesses ?? [] });
    }
  }
  checkIds(sources, options.builtinIds);
  return sources.flatMap((source) => source.entries.map(toAcpDefinition));
}
