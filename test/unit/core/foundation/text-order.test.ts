import path from "node:path";
import { ESLint } from "eslint";
import { byCodeUnits } from "../../../../src/core/foundation/text-order.js";
import { PROJECT_ROOT } from "../../../helpers/offrun.js";

// Offrun orders times, ids and paths by code units, never with localeCompare: its first call loads
// ICU's collator, about 8 ms of every `offrun ls` (which sorts its agents by start time).

test("ISO times order by when, ids and paths the same on every machine", () => {
  const times = ["2026-12-05T19:01:00.000Z", "2026-12-05T09:30:00.000Z", "2025-01-31T23:59:59.999Z"];
  expect([...times].sort(byCodeUnits)).toEqual([times[2], times[1], times[0]]);
  expect(["b", "B", "a", "é", "e"].sort(byCodeUnits)).toEqual(["B", "a", "b", "e", "é"]);
  expect(byCodeUnits("same", "same")).toBe(0);
});

test("lint refuses localeCompare, in the core and in the faces", async () => {
  const eslint = new ESLint({ cwd: PROJECT_ROOT });
  const code = "export const order = (a: string, b: string) => a.localeCompare(b);\n";
  for (const file of ["src/core/records/x.ts", "src/commands/x.tsx", "src/cli/x.ts"]) {
    const [result] = await eslint.lintText(code, { filePath: path.join(PROJECT_ROOT, file) });
    expect(result!.messages.map((m) => m.message)).toEqual([expect.stringContaining("byCodeUnits")]);
  }
}, 60_000);
