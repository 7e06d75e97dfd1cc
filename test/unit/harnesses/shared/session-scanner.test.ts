import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { SessionScanner } from "../../../../src/harnesses/shared/session-scanner.js";

/** A fold that keeps the `n` of every `{"n":..}` line, so tests can see exactly what was read. */
interface Seen {
  values: number[];
}
const lineSchema = z.object({ n: z.number() });

let root: string;
let home: string;
let cacheDir: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "offrun-scanner-"));
  home = path.join(root, "home");
  cacheDir = path.join(root, "cache");
  fs.mkdirSync(path.join(home, "a", "b"), { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function scanner(options: { version?: number } = {}): SessionScanner<Seen> {
  return new SessionScanner<Seen>({
    name: "test",
    version: options.version ?? 1,
    roots: [home],
    cacheDir,
    matches: (file) => file.endsWith(".jsonl"),
    needles: ['"n":'],
    initial: () => ({ values: [] }),
    fold(seen, line) {
      let json: unknown;
      try {
        json = JSON.parse(line.toString("utf8"));
      } catch {
        return "corrupt";
      }
      const parsed = lineSchema.safeParse(json);
      if (!parsed.success) return "ignored";
      seen.values.push(parsed.data.n);
      return "used";
    },
    encode: (seen) => seen.values,
    decode: (saved) => {
      const parsed = z.array(z.number()).safeParse(saved);
      return parsed.success ? { values: parsed.data } : undefined;
    },
  });
}

const lines = (...values: number[]) => values.map((n) => `{"n":${n}}\n`).join("");

test("a first refresh walks the roots and folds every complete line of every session file", async () => {
  fs.writeFileSync(path.join(home, "one.jsonl"), lines(1, 2));
  fs.writeFileSync(path.join(home, "a", "b", "two.jsonl"), lines(3));
  fs.writeFileSync(path.join(home, "notes.txt"), lines(99));
  const scan = scanner();
  const stats = await scan.refresh();
  expect(scan.aggregate.values.sort()).toEqual([1, 2, 3]);
  expect(stats).toMatchObject({ filesSeen: 2, filesRead: 2, linesFolded: 3, corruptLines: 0 });
});

test("lines without a needle never reach the fold", async () => {
  fs.writeFileSync(path.join(home, "one.jsonl"), `{"other":1}\nnot json at all\n${lines(5)}`);
  const scan = scanner();
  const stats = await scan.refresh();
  expect(scan.aggregate.values).toEqual([5]);
  expect(stats.corruptLines).toBe(0);
});

test("only what was appended since the last refresh is read", async () => {
  const file = path.join(home, "one.jsonl");
  fs.writeFileSync(file, lines(1, 2));
  const scan = scanner();
  await scan.refresh();
  fs.appendFileSync(file, lines(3));
  const stats = await scan.refresh();
  expect(scan.aggregate.values).toEqual([1, 2, 3]);
  expect(stats).toMatchObject({ filesRead: 1, linesFolded: 1, bytesRead: lines(3).length });
  expect((await scan.refresh()).filesRead).toBe(0); // nothing changed
});

test("a partial last line waits for its newline", async () => {
  const file = path.join(home, "one.jsonl");
  fs.writeFileSync(file, `${lines(1)}{"n":`);
  const scan = scanner();
  await scan.refresh();
  expect(scan.aggregate.values).toEqual([1]);
  fs.appendFileSync(file, "2}");
  await scan.refresh();
  expect(scan.aggregate.values).toEqual([1]); // still no newline
  fs.appendFileSync(file, "\n");
  await scan.refresh();
  expect(scan.aggregate.values).toEqual([1, 2]);
});

// readline would split this line at U+2028 (valid unescaped in a JSON string) and so break it.
test("a line with a Unicode line separator, or ending in \\r\\n, stays one line", async () => {
  fs.writeFileSync(path.join(home, "one.jsonl"), `{"n":1,"t":"a\u2028b"}\r\n`);
  const scan = scanner();
  await scan.refresh();
  expect(scan.aggregate.values).toEqual([1]);
});

test("corrupt lines are skipped and counted, and the count survives a restart", async () => {
  fs.writeFileSync(path.join(home, "one.jsonl"), `${lines(1)}{"n":2,"cut short\n${lines(3)}`);
  const scan = scanner();
  const stats = await scan.refresh();
  expect(scan.aggregate.values).toEqual([1, 3]);
  expect(stats.corruptLines).toBe(1);
  expect(scanner().corruptLines).toBe(0); // not loaded until the first refresh
  const again = scanner();
  await again.refresh();
  expect(again.corruptLines).toBe(1);
});

test("a truncated file is read again from its start", async () => {
  const file = path.join(home, "one.jsonl");
  fs.writeFileSync(file, lines(1, 2, 3));
  const scan = scanner();
  await scan.refresh();
  fs.truncateSync(file, 0);
  fs.appendFileSync(file, lines(7));
  const stats = await scan.refresh();
  expect(stats.rescanned).toBe(1);
  expect(scan.aggregate.values).toEqual([1, 2, 3, 7]);
});

test("a file replaced by another (log rotation) is read again from its start", async () => {
  const file = path.join(home, "one.jsonl");
  fs.writeFileSync(file, lines(1, 2));
  const scan = scanner();
  await scan.refresh();
  // Same size, new inode: only the inode tells them apart.
  const replacement = path.join(root, "replacement.jsonl");
  fs.writeFileSync(replacement, lines(8, 9));
  fs.renameSync(replacement, file);
  const stats = await scan.refresh();
  expect(stats.rescanned).toBe(1);
  expect(scan.aggregate.values).toEqual([1, 2, 8, 9]);
});

test("a restart continues from the saved offsets and aggregate", async () => {
  const file = path.join(home, "one.jsonl");
  fs.writeFileSync(file, lines(1, 2));
  await scanner().refresh();
  fs.appendFileSync(file, lines(3));
  const restarted = scanner();
  const stats = await restarted.refresh();
  expect(restarted.aggregate.values).toEqual([1, 2, 3]);
  expect(stats).toMatchObject({ filesRead: 1, linesFolded: 1 });
  expect(fs.readdirSync(cacheDir)).toEqual(["test.json"]); // no temp file left behind
});

test("a cache of another version, or an unreadable one, is dropped and the files read again", async () => {
  fs.writeFileSync(path.join(home, "one.jsonl"), lines(1));
  await scanner().refresh();
  const newer = scanner({ version: 2 });
  await newer.refresh();
  expect(newer.aggregate.values).toEqual([1]);
  fs.writeFileSync(path.join(cacheDir, "test.json"), "{not json");
  const afterDamage = scanner({ version: 2 });
  await afterDamage.refresh();
  expect(afterDamage.aggregate.values).toEqual([1]);
});

test("with the files a watcher reported, only those are looked at", async () => {
  const one = path.join(home, "one.jsonl");
  const two = path.join(home, "a", "b", "two.jsonl");
  fs.writeFileSync(one, lines(1));
  fs.writeFileSync(two, lines(2));
  const scan = scanner();
  await scan.refresh();
  fs.appendFileSync(one, lines(3));
  fs.appendFileSync(two, lines(4));
  const outside = path.join(root, "elsewhere.jsonl");
  fs.writeFileSync(outside, lines(5));
  const stats = await scan.refresh([one, outside]);
  expect(stats).toMatchObject({ filesSeen: 1, filesRead: 1 });
  expect(scan.aggregate.values.sort()).toEqual([1, 2, 3]);
  await scan.refresh(); // the walk catches up with the other file
  expect(scan.aggregate.values.sort()).toEqual([1, 2, 3, 4]);
});

test("a line longer than the read buffer is folded whole", async () => {
  const long = `{"n":42,"text":"${"x".repeat(9 << 20)}"}\n`;
  fs.writeFileSync(path.join(home, "one.jsonl"), lines(1) + long + lines(2));
  const scan = scanner();
  await scan.refresh();
  expect(scan.aggregate.values).toEqual([1, 42, 2]);
});

test("deleted files are forgotten and a missing root is no error", async () => {
  const file = path.join(home, "one.jsonl");
  fs.writeFileSync(file, lines(1));
  const scan = scanner();
  await scan.refresh();
  fs.rmSync(home, { recursive: true });
  const stats = await scan.refresh();
  expect(stats.filesSeen).toBe(0);
  const saved = z
    .object({ files: z.record(z.string(), z.unknown()) })
    .parse(JSON.parse(fs.readFileSync(path.join(cacheDir, "test.json"), "utf8")));
  expect(Object.keys(saved.files)).toEqual([]);
});

test("concurrent refreshes run one after the other and read each line once", async () => {
  fs.writeFileSync(path.join(home, "one.jsonl"), lines(1, 2, 3));
  const scan = scanner();
  await Promise.all([scan.refresh(), scan.refresh(), scan.refresh()]);
  expect(scan.aggregate.values).toEqual([1, 2, 3]);
});
