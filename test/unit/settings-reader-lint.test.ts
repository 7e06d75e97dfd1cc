import path from "node:path";
import { ESLint } from "eslint";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// One function reads a project's `.offrun/config.json` for every consumer and applies
// trust (loadProjectSettings). The lint keeps it that way: a second reader anywhere in src fails it.

const eslint = new ESLint({ cwd: PROJECT_ROOT });
const messagesOf = async (code: string, file: string) =>
  (await eslint.lintText(code, { filePath: path.join(PROJECT_ROOT, file) }))[0]!.messages.map((m) => m.message);
const SETTINGS = /loadProjectSettings/;

test("opening a project's config.json outside foundation/project.ts fails the lint", async () => {
  const reader = [
    'import { projectPaths } from "../foundation/paths.js";',
    'import { readJsonFile } from "../foundation/store.js";',
    "export const read = (root: string) => readJsonFile(projectPaths(root).config, undefined as never);",
    "",
  ].join("\n");
  expect(await messagesOf(reader, "src/core/agents/x.ts")).toEqual([expect.stringMatching(SETTINGS)]);
  expect(
    await messagesOf(reader.replaceAll("../foundation", "../../core/foundation"), "src/harnesses/acp/x.ts"),
  ).toEqual([expect.stringMatching(SETTINGS)]);
}, 60_000);

test("parsing with the full config schema outside it fails the lint; zod's import rule still holds", async () => {
  const parser = [
    'import { projectConfigSchema } from "../foundation/model.js";',
    "export const parse = (value: unknown) => projectConfigSchema.parse(value);",
    "",
  ].join("\n");
  expect((await messagesOf(parser, "src/core/quota/x.ts")).filter((m) => SETTINGS.test(m)).length).toBeGreaterThan(0);
  const zod = 'import { z } from "zod";\nexport const schema = z.string();\n';
  expect(await messagesOf(zod, "src/core/quota/x.ts")).toEqual([expect.stringMatching(/import \* as z/)]);
}, 60_000);

test("the one reader itself, and the code as it stands, pass", async () => {
  const results = await eslint.lintFiles(["src/core/foundation/project.ts", "src/harnesses/acp/custom.ts"]);
  expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`))).toEqual([]);
}, 60_000);
