import fs from "node:fs/promises";
import path from "node:path";
import { execa, type ResultPromise } from "execa";
import { claudeProjectFolder } from "../../src/harnesses/claude/session-files.js";
import { eventually, makeSandbox, OFFRUN_BIN, PROJECT_ROOT, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fillToTheLastByte, itWithTmpfs as itWithMount } from "../helpers/tmpfs.js";

// A real ENOSPC: Offrun's home is a small tmpfs filled to the last byte while a real
// `offrun companion run` watches an external Claude session (helpers/tmpfs.ts).
const CLAUDE = path.join(PROJECT_ROOT, "test/fixtures/claude/2.1.332");

let box: Sandbox;
let companion: ResultPromise | undefined;
let stderr = "";

afterAll(async () => {
  companion?.kill("SIGTERM");
  await companion;
  if (box) {
    await execa("umount", [box.offrunHome], { reject: false });
    await box.cleanup();
  }
});

itWithMount(
  "a companion whose disk is full says so, keeps notifying, and saves its offsets again once there is room",
  async () => {
    box = await makeSandbox("offrun-full-");
    await execa("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", box.offrunHome]);
    const bin = path.join(box.dir, "bin");
    const calls = path.join(box.dir, "notify-send.calls");
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, "notify-send"), `#!/bin/sh\nprintf '%s\\n' "$2" >> '${calls}'\n`, {
      mode: 0o755,
    });
    await fs.writeFile(
      path.join(box.offrunHome, "config.json"),
      JSON.stringify({ notifications: { minIntervalSeconds: 0 } }),
    );
    const turnEnd = (await fs.readFile(path.join(CLAUDE, "transcripts/turn-end.jsonl"), "utf8")).split("\n");
    const meta = JSON.parse(await fs.readFile(path.join(CLAUDE, "transcripts.meta.json"), "utf8")) as { cwd: string };
    const folder = path.join(box.home, ".claude", "projects", claudeProjectFolder(meta.cwd));
    await fs.mkdir(folder, { recursive: true });
    const env = { ...box.env, PATH: `${bin}:${box.env.PATH ?? ""}` };
    const log = path.join(box.offrunHome, "companion.log");
    companion = execa(process.execPath, [OFFRUN_BIN, "companion", "run"], {
      env,
      extendEnv: false,
      stdin: "ignore",
      reject: false,
      buffer: false,
    });
    companion.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    await eventually(
      async () =>
        (await fs.readFile(log, "utf8").catch(() => "")).includes("transcripts: watching") ? true : undefined,
      20_000,
      "the transcript watcher",
    );

    // Fill the disk to the last byte, and keep it full: a write under way when dd ended renames its
    // file over the old one and frees a page, and from then on the snapshot (one page, written over
    // itself) always finds room. So the disk is topped up until it stays full.
    const filler = path.join(box.offrunHome, "filler");
    await fillToTheLastByte(filler);
    const told = async () => (await fs.readFile(calls, "utf8").catch(() => "")).split("\n").filter(Boolean);
    const session = (id: string) =>
      turnEnd.filter(Boolean).map((l) => l.split(JSON.parse(turnEnd[0]!).sessionId).join(id));
    // A session that ends a turn while nothing can be written: it is still told, and the failure is said.
    await fs.appendFile(
      path.join(folder, "aaaaaaaa-0000-4000-8000-000000000001.jsonl"),
      session("aaaaaaaa-0000-4000-8000-000000000001").join("\n") + "\n",
    );
    await eventually(async () => ((await told()).length >= 1 ? true : undefined), 10_000, "a notification");
    const said = async () => stderr + (await fs.readFile(log, "utf8").catch(() => ""));
    await eventually(
      async () => (/offsets not saved .*ENOSPC/.test(await said()) ? true : undefined),
      10_000,
      "the offsets failure, with its cause",
    );
    await eventually(
      async () => (/snapshot: .*ENOSPC/.test(await said()) ? true : undefined),
      10_000,
      "the snapshot failure",
    ).catch(async (error: Error) => {
      const files = (await execa("ls", ["-la", box.offrunHome], { reject: false })).stdout;
      throw new Error(`${error.message}\n--- the companion said:\n${await said()}\n--- its home:\n${files}`);
    });
    expect((await runOffrun(["companion", "status"], { env })).stdout).toMatch(/running/);

    // Room again: the next change saves the offsets, and says so.
    for (const name of await fs.readdir(box.offrunHome)) {
      if (name.startsWith("filler")) await fs.rm(path.join(box.offrunHome, name));
    }
    await fs.appendFile(
      path.join(folder, "bbbbbbbb-0000-4000-8000-000000000002.jsonl"),
      session("bbbbbbbb-0000-4000-8000-000000000002").join("\n") + "\n",
    );
    await eventually(async () => ((await told()).length >= 3 ? true : undefined), 10_000, "the second session");
    await eventually(
      async () => ((await said()).includes("offsets saved again") ? true : undefined),
      10_000,
      "saved again",
    );
    const offsets = JSON.parse(
      await fs.readFile(path.join(box.offrunHome, "cache", "transcript-offsets.json"), "utf8"),
    ) as {
      files: Record<string, unknown>;
    };
    expect(Object.keys(offsets.files)).toHaveLength(2);
    expect(companion.exitCode).toBeNull();
    // Said once while failing, not on every change.
    expect((await said()).match(/offsets not saved/g)).toHaveLength(1);
  },
  60_000,
);
