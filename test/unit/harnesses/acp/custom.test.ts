import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadCustomHarnessDefinitions } from "../../../../src/harnesses/acp/custom.js";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { findHarness, listHarnesses } from "../../../../src/harnesses/registry.js";
import { trustRepository } from "../../../../src/core/foundation/trust.js";

let dir: string;
let env: NodeJS.ProcessEnv;
let project: string;
const userFile = () => path.join(dir, "oh", "harnesses.json");
const projectFile = () => path.join(project, ".offrun", "config.json");

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "offrun-custom-"));
  env = { HOME: path.join(dir, "home"), OFFRUN_HOME: path.join(dir, "oh") };
  project = path.join(dir, "project");
  await mkdir(path.join(dir, "oh"), { recursive: true });
  await mkdir(path.join(project, ".offrun"), { recursive: true });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const write = (file: string, value: unknown) => writeFile(file, JSON.stringify(value));
/** The project's config, as its owner wrote it and trusted it (`offrun trust --yes`). */
const writeTrusted = async (value: Record<string, unknown>) => {
  await write(projectFile(), value);
  await trustRepository(project, value);
};
const load = () => loadCustomHarnessDefinitions({ projectRoot: project, env, builtinIds: ["claude", "grok"] });

async function failure(): Promise<string> {
  try {
    await load();
  } catch (error) {
    expect(isOffrunError(error, "invalid_file")).toBe(true);
    return (error as Error).message;
  }
  throw new Error("expected the files to be refused");
}

test("no files mean no custom harnesses", async () => {
  expect(await load()).toEqual([]);
});

test("entries from both files become ACP definitions with Offrun's defaults, user's first", async () => {
  await write(userFile(), {
    harnesses: [
      {
        id: "kiro",
        command: "kiro-cli",
        args: ["acp"],
        homeVariable: "KIRO_HOME",
        modes: { build: "code", plan: "plan" },
      },
    ],
  });
  await writeTrusted({
    branchPrefix: "x/",
    harnesses: [
      { id: "team-agent", displayName: "Team Agent", command: "/opt/team/agent", initializeTimeoutSeconds: 5 },
    ],
  });
  const [kiro, team] = await load();
  expect(kiro).toMatchObject({
    id: "kiro",
    displayName: "kiro",
    command: "kiro-cli",
    args: ["acp"],
    homeVariable: "KIRO_HOME",
    modes: { build: "code", plan: "plan" },
    initializeTimeoutMs: 30_000,
  });
  expect(team).toMatchObject({
    id: "team-agent",
    displayName: "Team Agent",
    homeVariable: "HOME",
    initializeTimeoutMs: 5_000,
  });
});

test.each([
  ["../evil", "harnesses.0.id"],
  ["__proto__", "harnesses.0.id"],
  ["constructor", "harnesses.0.id"],
  ["Kiro", "harnesses.0.id"],
  ["a".repeat(40), "harnesses.0.id"],
])("a hostile or malformed id (%s) is refused, naming the file and the field", async (id, field) => {
  await write(userFile(), { harnesses: [{ id, command: "agent" }] });
  const message = await failure();
  expect(message).toContain(userFile());
  expect(message).toContain(field);
});

test("an id taken by a built-in or by the other file is refused with both places named", async () => {
  await write(userFile(), { harnesses: [{ id: "grok", command: "my-grok" }] });
  expect(await failure()).toMatch(/harnesses\.0\.id: 'grok' is already taken by Offrun's built-in harnesses/);

  await write(userFile(), { harnesses: [{ id: "kiro", command: "kiro-cli" }] });
  await writeTrusted({ harnesses: [{ id: "kiro", command: "other" }] });
  const message = await failure();
  expect(message).toContain(projectFile());
  expect(message).toContain(`'kiro' is already taken by ${userFile()}`);
});

test("a relative command, a secret-looking variable and an unknown key are each explained", async () => {
  await write(userFile(), {
    harnesses: [{ id: "kiro", command: "./bin/kiro", env: { KIRO_API_KEY: "x" }, comand: "typo" }],
  });
  const message = await failure();
  expect(message).toMatch(/harnesses\.0\.command: must be a program name found on PATH/);
  expect(message).toMatch(/KIRO_API_KEY.*looks like a secret|looks like a secret/);
  expect(message).toMatch(/comand/);
  expect(message).toMatch(/Fix harnesses\.json/);
});

test("a project config whose harnesses are not a list is refused; its other keys are left alone", async () => {
  await write(projectFile(), { turnTimeoutMinutes: 5, harnesses: { id: "kiro" } });
  const message = await failure();
  expect(message).toContain(projectFile());
  expect(message).toMatch(/harnesses:/);
});

test("invalid JSON names the file", async () => {
  await writeFile(userFile(), "{ harnesses: [");
  expect(await failure()).toMatch(/harnesses\.json is not valid JSON/);
});

test("the registry lists built-ins and custom agents, and resolves a custom id to a live-only ACP harness", async () => {
  await writeTrusted({ harnesses: [{ id: "kiro", displayName: "Kiro", command: "kiro-cli", args: ["acp"] }] });
  const all = await listHarnesses({ project, env });
  expect(all.map((h) => h.id)).toEqual(expect.arrayContaining(["claude", "codex", "grok", "kiro"]));
  const kiro = await findHarness("kiro", { project, env });
  expect(kiro.displayName).toBe("Kiro");
  expect(kiro.live).toBeDefined();
  expect(() => kiro.turnCommand({ prompt: "x", mode: "build", cwd: "/", binary: "kiro-cli", env: {} })).toThrow(
    /runs only as a live turn/,
  );
  await expect(findHarness("nope", { project, env })).rejects.toThrow(/Unknown harness 'nope'.*kiro/);
});

test("an agent's state folders are what its sandboxed turn writes of its login's home; a folder outside it is refused", async () => {
  await write(userFile(), { harnesses: [{ id: "kiro", command: "kiro-cli", stateFolders: ["~/.kiro"] }] });
  const kiro = await findHarness("kiro", { project, env });
  expect(kiro.sandbox.state?.("/home/ada", env)).toEqual({ folders: ["/home/ada/.kiro"], files: [] });
  for (const outside of ["/etc", "~/../x", "~/"]) {
    await write(userFile(), { harnesses: [{ id: "kiro", command: "kiro-cli", stateFolders: [outside] }] });
    expect(await failure()).toMatch(/stateFolders\.0: must be a folder inside the login's home/);
  }
  // Undeclared, nothing of the home: it holds what the agent runs at its next start, unsandboxed.
  await write(userFile(), { harnesses: [{ id: "kiro", command: "kiro-cli" }] });
  const undeclared = await findHarness("kiro", { project, env });
  expect(undeclared.sandbox.state?.("/home/ada/.offrun/logins/kiro/work", env)).toEqual({ folders: [], files: [] });
});

// A repository's agents are commands it would run as "the agent".
test("a project's agents are left out until the user trusts the repository, and again after they change", async () => {
  const agents = { harnesses: [{ id: "team-agent", command: "/opt/team/agent" }] };
  await write(projectFile(), agents);
  expect(await load()).toEqual([]);
  await trustRepository(project, agents);
  expect((await load()).map((definition) => definition.id)).toEqual(["team-agent"]);
  await write(projectFile(), { harnesses: [{ id: "team-agent", command: "/tmp/other" }] });
  expect(await load()).toEqual([]);
});
