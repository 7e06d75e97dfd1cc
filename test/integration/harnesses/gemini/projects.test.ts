import fs from "node:fs/promises";
import path from "node:path";
import { geminiSlug, registerGeminiProject } from "../../../../src/harnesses/gemini/projects.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// Offrun registers a sandboxed Gemini CLI turn's worktree in the CLI's project registry before the
// turn, as Gemini CLI 0.61.0's ProjectRegistry would (the registry is read-only inside the turn).
// The real CLI taking these registrations is checked in test/e2e/sandbox-login-state.test.ts.

let box: Sandbox;
let state: string;
beforeEach(async () => {
  box = await makeSandbox("offrun-gemini-projects-");
  state = path.join(box.home, ".gemini");
});
afterEach(async () => {
  await box.cleanup();
});

const registry = async () =>
  (JSON.parse(await fs.readFile(path.join(state, "projects.json"), "utf8")) as { projects: Record<string, string> })
    .projects;
const marker = (root: string, slug: string) => fs.readFile(path.join(state, root, slug, ".project_root"), "utf8");

test("a new project gets its name's slug, with a marker in tmp/ and history/; again, the same slug", async () => {
  const project = path.join(box.dir, "My App.v2");
  expect(await registerGeminiProject(state, project)).toBe("my-app-v2");
  expect(await registry()).toEqual({ [project]: "my-app-v2" });
  expect(await marker("tmp", "my-app-v2")).toBe(project);
  expect(await marker("history", "my-app-v2")).toBe(project);
  expect(await registerGeminiProject(state, project)).toBe("my-app-v2");
  await expect(fs.access(path.join(state, "projects.json.lock"))).rejects.toThrow();
});

test("a second project of the same name takes the next free slug; a marked folder is found by its marker", async () => {
  const first = path.join(box.dir, "a", "app");
  const second = path.join(box.dir, "b", "app");
  expect(await registerGeminiProject(state, first)).toBe("app");
  expect(await registerGeminiProject(state, second)).toBe("app-1");
  // Registered by a CLI that lost its registry: the marker still says whose folder it is.
  const third = path.join(box.dir, "c", "tool");
  await fs.mkdir(path.join(state, "tmp", "tool-7"), { recursive: true });
  await fs.writeFile(path.join(state, "tmp", "tool-7", ".project_root"), third);
  expect(await registerGeminiProject(state, third)).toBe("tool-7");
  expect((await registry())[third]).toBe("tool-7");
});

test("a registry entry whose folder another project owns is not trusted; an unreadable registry is set aside", async () => {
  const project = path.join(box.dir, "app");
  await fs.mkdir(path.join(state, "tmp", "app"), { recursive: true });
  await fs.writeFile(path.join(state, "tmp", "app", ".project_root"), "/somewhere/else");
  await fs.writeFile(path.join(state, "projects.json"), JSON.stringify({ projects: { [project]: "app" } }));
  expect(await registerGeminiProject(state, project)).toBe("app-1");
  await fs.writeFile(path.join(state, "projects.json"), "{ not json");
  expect(await registerGeminiProject(state, path.join(box.dir, "other"))).toBe("other");
  const aside = (await fs.readdir(state)).filter((name) => name.startsWith("projects.json.unreadable-"));
  expect(aside).toHaveLength(1);
  expect(await fs.readFile(path.join(state, aside[0]!), "utf8")).toBe("{ not json");
  expect(Object.values(await registry())).toEqual(["other"]);
});

test("the slug of a name is the CLI's", () => {
  expect(geminiSlug("Hello, World!")).toBe("hello-world");
  expect(geminiSlug("--")).toBe("project");
  expect(geminiSlug("ÄÖ")).toBe("project");
});
