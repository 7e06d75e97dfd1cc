import fs from "node:fs/promises";
import path from "node:path";

/** The benchmarks' large repository: `count` small files, 100 to a folder under `src/module-<n>`. */
export async function generateRepo(repo: string, count: number): Promise<void> {
  const perDir = 100;
  for (let d = 0; d * perDir < count; d++) {
    const folder = path.join(repo, "src", `module-${d}`);
    await fs.mkdir(folder, { recursive: true });
    const writes: Promise<void>[] = [];
    for (let f = 0; f < perDir && d * perDir + f < count; f++) {
      writes.push(fs.writeFile(path.join(folder, `file-${f}.ts`), `export const value${f} = ${d * perDir + f};\n`));
    }
    await Promise.all(writes);
  }
}

/** min, median and max, each right-aligned in 8 columns. */
export function stats(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return [sorted[0]!, median(sorted), sorted.at(-1)!].map((v) => v.toFixed(0).padStart(8)).join("");
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
