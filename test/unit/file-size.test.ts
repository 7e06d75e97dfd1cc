import fs from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// About 300 lines is a guide for cohesion, not a number to split a file for (a concept split in
// two to fit reads worse than one a little over); past 400 a file is surely doing more than one job.
const MAX_LINES = 400;

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sourceFiles(full);
      return Promise.resolve(/\.tsx?$/.test(entry.name) ? [full] : []);
    }),
  );
  return nested.flat();
}

test(`no file in src is over ${MAX_LINES} lines`, async () => {
  const files = await sourceFiles(path.join(PROJECT_ROOT, "src"));
  expect(files.length).toBeGreaterThan(100);
  const over: string[] = [];
  for (const file of files) {
    const lines = (await fs.readFile(file, "utf8")).split("\n").length - 1;
    if (lines > MAX_LINES) over.push(`${path.relative(PROJECT_ROOT, file)}: ${lines} lines`);
  }
  expect(over).toEqual([]);
});
