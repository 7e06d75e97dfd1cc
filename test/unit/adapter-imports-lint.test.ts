import path from "node:path";
import { ESLint } from "eslint";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Adapters stay apart: one in src/harnesses/<cli>/ imports only itself, harnesses/shared,
// harnesses/types and the core's foundations (eslint.config.js, adapterBoundaries). Without the
// rule, an adapter importing another's files passes the lint and these fail.

const eslint = new ESLint({ cwd: PROJECT_ROOT });
const messagesOf = async (code: string, file: string) =>
  (await eslint.lintText(code, { filePath: path.join(PROJECT_ROOT, file) }))[0]!.messages.map((m) => m.message);
const APART = /An adapter imports only its own folder/;

/** A fixture adapter file: one import, and a use of it. */
const importing = (specifier: string) => `import { something } from "${specifier}";\nexport const used = something;\n`;

test("an adapter that imports another adapter fails the lint", async () => {
  expect(await messagesOf(importing("../claude/limit-text.js"), "src/harnesses/acp/x.ts")).toEqual([
    expect.stringMatching(APART),
  ]);
  expect(await messagesOf(importing("../codex/parser.js"), "src/harnesses/grok/x.ts")).toEqual([
    expect.stringMatching(APART),
  ]);
  // The long way round is the same import.
  expect(await messagesOf(importing("../../harnesses/pi/quota.js"), "src/harnesses/gemini/x.ts")).toEqual([
    expect.stringMatching(APART),
  ]);
  // A type is a dependency too.
  const typeOnly = 'import type { Something } from "../gemini/parser.js";\nexport type Used = Something;\n';
  expect(await messagesOf(typeOnly, "src/harnesses/opencode/x.ts")).toEqual([expect.stringMatching(APART)]);
}, 60_000);

test("shared code imports no adapter, and the ACP client none either", async () => {
  expect(await messagesOf(importing("../claude/quota.js"), "src/harnesses/shared/x.ts")).toEqual([
    expect.stringMatching(APART),
  ]);
  expect(await messagesOf(importing("../grok/acp.js"), "src/harnesses/acp/x.ts")).toEqual([
    expect.stringMatching(APART),
  ]);
}, 60_000);

test("its own folder, shared, types, the foundations and (for an ACP agent) the ACP client pass", async () => {
  const allowed = [
    "./parser.js",
    "../shared/json-lines.js",
    "../types.js",
    "../../core/foundation/events.js",
    "../acp/index.js",
  ];
  for (const specifier of allowed)
    expect(await messagesOf(importing(specifier), "src/harnesses/grok/x.ts")).toEqual([]);
  // The failures of ACP turns read the Claude and Codex limit texts, from shared now.
  const results = await eslint.lintFiles(["src/harnesses/acp/failures.ts", "src/harnesses/grok/limits.ts"]);
  expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`))).toEqual([]);
}, 60_000);
