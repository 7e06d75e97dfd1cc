import fs from "node:fs/promises";
import path from "node:path";
import { ESLint } from "eslint";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// The rooms of src/core import only the rooms below them (CORE_ORDER in eslint.config.js); without
// the rule, an import back up (type-only included) passed the lint and the rooms leaned on each other.

const eslint = new ESLint({ cwd: PROJECT_ROOT });
const messagesOf = async (code: string, file: string) =>
  (await eslint.lintText(code, { filePath: path.join(PROJECT_ROOT, file) }))[0]!.messages.map((m) => m.message);
const fixture = () => fs.readFile(path.join(PROJECT_ROOT, "test/fixtures/lint/upward-import.ts.txt"), "utf8");

test("an import from a core room up into one above it fails the lint, type-only too", async () => {
  expect(await messagesOf(await fixture(), "src/core/git/upward.ts")).toEqual([
    expect.stringMatching(/^core\/git may import only the core folders below it \(.*\): core\/agents is above it/),
  ]);
}, 60_000);

test("the same imports from a room above both pass, and so do files that once reached up", async () => {
  expect(await messagesOf(await fixture(), "src/core/review/upward.ts")).toEqual([]);
  const once = ["companion/view-handlers", "logins/quota-report", "agents/recovery", "remote/link", "memory/turn"];
  const results = await eslint.lintFiles(once.map((file) => `src/core/${file}.ts`));
  expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`))).toEqual([]);
}, 60_000);

test("a dynamic import() or an import type up the order fails too; a folder outside the order is named", async () => {
  const dynamic = 'export const load = () => import("../companion/server.js");\n';
  expect(await messagesOf(dynamic, "src/core/quota/x.ts")).toEqual([
    expect.stringMatching(/core\/companion is above it/),
  ]);
  const typeImport = 'export type S = import("../companion/server.js").Handlers;\n';
  expect(await messagesOf(typeImport, "src/core/quota/x.ts")).toEqual([
    expect.stringMatching(/core\/companion is above it/),
  ]);
  expect(await messagesOf(dynamic, "src/core/newroom/x.ts")).toEqual([
    expect.stringMatching(/core\/newroom is in no place/),
  ]);
}, 60_000);

test("a Raycast presenter stays free of React and @raycast/api", async () => {
  const code =
    'import { List } from "@raycast/api";\nimport { useState } from "react";\nexport const a = [List, useState];\n';
  expect(await messagesOf(code, "src/commands/presenters/x.ts")).toEqual([
    expect.stringMatching(/presenter/),
    expect.stringMatching(/presenter/),
  ]);
}, 60_000);
