import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { writeDraft } from "../../src/core/records/draft.js";
import { privateProjectDirs } from "../../src/core/foundation/private-files.js";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";
import { fixture, writeStubCli } from "../helpers/stub-cli.js";

// Private by default, proved with a second local user: root reads every file whatever its mode,
// so the test adds an unprivileged user (CI runs as root on Debian) and reads as that user.

const OTHER = "offrun-other";

function onPath(tool: string): boolean {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter), "/usr/sbin", "/sbin"];
  return dirs.some((dir) => dir !== "" && fs.existsSync(path.join(dir, tool)));
}

/** Why this machine cannot run the test (a developer's Mac, a non-root run), or undefined. */
function whyNot(): string | undefined {
  if (process.platform !== "linux") return `it needs Linux's useradd and runuser, and this is ${process.platform}`;
  if (process.getuid?.() !== 0) return "it must run as root to add a second local user (CI does)";
  for (const tool of ["useradd", "runuser"]) if (!onPath(tool)) return `${tool} is not installed`;
  return undefined;
}

const reason = whyNot();
if (reason) console.warn(`private-other-user.test.ts skipped: ${reason}`);
const maybeTest = reason ? test.skip : test;

let box: Sandbox | undefined;
afterAll(async () => {
  await box?.cleanup();
});

async function ensureOtherUser(): Promise<void> {
  const known = await execa("id", ["-u", OTHER], { reject: false, timeout: 10_000 });
  if (known.exitCode === 0) return;
  const added = await execa(
    "useradd",
    ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", OTHER],
    { reject: false, timeout: 30_000 },
  );
  // 9: added meanwhile by another run.
  if (added.exitCode !== 0 && added.exitCode !== 9) throw new Error(`useradd failed: ${added.stderr}`);
}

/**
 * Run as the other user: reads each file and connects to the socket, and prints what happened to
 * each ("read", "connected", or the error code). One process for all, so the test stays quick.
 */
const PROBE = `
const fs = require("node:fs");
const net = require("node:net");
const [socket, ...files] = process.argv.slice(1);
const out = {};
for (const file of files) {
  try { fs.readFileSync(file); out[file] = "read"; } catch (error) { out[file] = error.code; }
}
const connection = net.connect(socket);
const done = (what) => { out[socket] = what; console.log(JSON.stringify(out)); process.exit(0); };
connection.on("connect", () => done("connected"));
connection.on("error", (error) => done(error.code));
`;

async function probeAsOther(socket: string, files: string[]): Promise<Record<string, string>> {
  const result = await execa("runuser", ["-u", OTHER, "--", process.execPath, "-e", PROBE, socket, ...files], {
    env: { PATH: process.env.PATH },
    extendEnv: false,
    stdin: "ignore",
    timeout: 30_000,
  });
  return JSON.parse(result.stdout) as Record<string, string>;
}

/** Every file and folder under `dir` (symlinks and sockets too, as themselves). */
async function walk(dir: string): Promise<{ file: string; mode: number; kind: "dir" | "file" | "other" }[]> {
  const names = await fsp.readdir(dir, { recursive: true });
  const all = [dir, ...names.map((name) => path.join(dir, name))];
  const found = await Promise.all(
    all.map(async (file) => {
      // A write in flight (state.json's temp file, renamed over it) may be gone by now.
      const stat = await fsp.lstat(file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined;
        throw error;
      });
      if (!stat) return undefined;
      const kind = stat.isDirectory() ? "dir" : stat.isFile() ? "file" : "other";
      return { file, mode: stat.mode & 0o777, kind } as const;
    }),
  );
  return found.filter((entry) => entry !== undefined);
}

maybeTest(
  `another local user can read nothing Offrun writes for you, nor reach its companion${reason ? ` (skipped: ${reason})` : ""}`,
  async () => {
    await ensureOtherUser();
    box = await makeSandbox("offrun-priv-");
    // The test's own folders (mkdtemp makes them 0700) let the other user through, so that a
    // refusal comes from Offrun's modes; the control file beside them shows it would be read.
    await fsp.chmod(box.dir, 0o755);
    const control = path.join(box.dir, "control.txt");
    await fsp.writeFile(control, "anyone may read this\n", { mode: 0o644 });
    await fsp.chmod(control, 0o644);
    const umaskFile = path.join(box.dir, "umask-made.txt");
    await fsp.writeFile(umaskFile, "made with the umask\n");
    const umaskMode = (await fsp.stat(umaskFile)).mode & 0o777;

    const repo = await makeRepo(path.join(box.dir, "repo"), box.env, {
      "README.md": "# demo\n",
      ".offrun/config.json": JSON.stringify({ setup: [["echo", "set up"]] }) + "\n",
    });
    await fsp.chmod(repo, 0o755);
    const bin = await writeStubCli(path.join(box.dir, "stub", "claude"), {
      replay: fixture("claude", "2.1.332", "text-reply"),
    });
    const env = { ...box.env, OFFRUN_CLAUDE_BIN: bin };
    expect(await runOffrun(["trust", "--yes"], { env, cwd: repo })).toSucceed(); // its setup runs only once trusted
    expect(await runOffrun(["start", "--wait", "--name", "fin", "say hi"], { env, cwd: repo })).toSucceed();
    await writeDraft(repo, "fin", "fix the typo\n");
    const state = path.join(box.offrunHome, "state.json");
    await eventually(async () => (fs.existsSync(state) ? true : undefined), 30_000, "state.json");

    const ours = [
      ...(await walk(box.offrunHome)),
      ...(await Promise.all(privateProjectDirs(repo).map((dir) => walk(dir)))).flat(),
    ];
    const files = ours.filter((entry) => entry.kind === "file").map((entry) => entry.file);
    const relative = files.map((file) => path.relative(box!.dir, file));
    // What an older Offrun left at 0644, each present so the test proves something about it.
    for (const expected of ["oh/state.json", "oh/companion.log", "oh/projects.json", "repo/.offrun/chats/fin.jsonl"])
      expect(relative).toContain(expected);
    for (const pattern of [
      /^oh\/cache\/.+/,
      /^repo\/\.offrun\/agents\/fin\.json$/,
      /^repo\/\.offrun\/agents\/logs\/fin\.log$/,
      /^repo\/\.offrun\/agents\/drafts\/fin\.md$/,
      /^repo\/\.offrun\/memory-snapshots\/blobs\/[0-9a-f]{64}$/,
    ])
      expect(relative.some((file) => pattern.test(file))).toBe(true);

    // Modes: user-only folders and files everywhere Offrun writes for you.
    // proper-lockfile makes its `<file>.lock` folders with the default mode: they are empty, held
    // for a moment, and always inside one of these user-only folders.
    const isLock = (entry: { file: string; kind: string }) => entry.kind === "dir" && entry.file.endsWith(".lock");
    const open = ours.filter((entry) => entry.kind !== "other" && !isLock(entry) && (entry.mode & 0o077) !== 0);
    expect(open.map((entry) => `${entry.file} ${entry.mode.toString(8)}`)).toEqual([]);
    const socket = path.join(box.offrunHome, "run", "companion.sock");
    expect((await fsp.lstat(socket)).mode & 0o777).toBe(0o600);
    expect((await fsp.stat(path.dirname(socket))).mode & 0o777).toBe(0o700);

    // What the user commits keeps the umask's mode; worktrees are user code, left as git made them.
    const committed = [
      path.join(repo, ".offrun", "config.json"),
      path.join(repo, ".offrun", "memory", "conventions.md"),
      path.join(repo, ".worktrees", "fin", "README.md"),
    ];
    for (const file of committed) expect((await fsp.stat(file)).mode & 0o777).toBe(umaskMode);

    const seen = await probeAsOther(socket, [control, ...committed, ...files]);
    expect(seen[control]).toBe("read");
    // A umask that lets others read (CI's 022): the memory and settings are readable, as before.
    if ((umaskMode & 0o004) !== 0) for (const file of committed) expect(seen[file]).toBe("read");
    const read = files.filter((file) => seen[file] !== "EACCES");
    expect(read.map((file) => `${file}: ${seen[file]}`)).toEqual([]);
    expect(seen[socket]).toBe("EACCES");
  },
  180_000,
);
