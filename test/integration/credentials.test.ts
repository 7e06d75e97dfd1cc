import { execa } from "execa";
import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { CLAUDE_BIN } from "../helpers/claude-env.js";
import { CODEX_BIN } from "../helpers/codex-env.js";
import { makeSandbox, OFFRUN_BIN, type Sandbox } from "../helpers/offrun.js";

/**
 * The promise that Offrun never reads a credential, checked at the system-call level: every
 * account command runs under `strace -f`, and no process of Offrun's own (node running
 * anything but a pinned agent CLI) may open a `.credentials.json` or `auth.json`. The real
 * CLIs reading their own credentials (during `claude auth status`, `codex login status`) is
 * allowed: they are the CLI. Linux only (strace); CI installs strace.
 */

const CREDENTIAL_FILE = /(^|\/)(\.credentials\.json|auth\.json)$/;
const onLinux = process.platform === "linux";
// Process creation and exec to know which program each pid is; every way to open a file.
const STRACE_ARGS = ["-f", "-s", "4096", "-e", "trace=execve,clone,clone3,fork,vfork,open,openat,openat2"];

/** One call from an `strace -f -s 4096` log, after joining its `<unfinished ...>` and `resumed>` halves. */
interface Call {
  pid: number;
  text: string;
}

function parseStraceCalls(log: string): Call[] {
  const pending = new Map<number, string>();
  const calls: Call[] = [];
  for (const line of log.split("\n")) {
    const match = /^(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const pid = Number(match[1]);
    let text = match[2]!;
    if (text.endsWith("<unfinished ...>")) {
      pending.set(pid, text.slice(0, -"<unfinished ...>".length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(text);
    if (resumed) {
      text = (pending.get(pid) ?? "") + resumed[1];
      pending.delete(pid);
    }
    calls.push({ pid, text });
  }
  return calls;
}

const QUOTED = /"((?:[^"\\]|\\.)*)"/g;

interface Program {
  file: string;
  argv: string[];
}

/**
 * Maps every pid (threads included) to the program it ran: its last successful execve, or, for
 * a thread or a child that never exec'd, its parent's. Returns the files each pid tried to open.
 */
function programsAndOpens(calls: Call[]): { programOf: (pid: number) => Program | undefined; opens: Call[] } {
  const exec = new Map<number, Program>();
  const parent = new Map<number, number>();
  const opens: Call[] = [];
  for (const call of calls) {
    if (/^execve\(/.test(call.text) && /\)\s+= 0$/.test(call.text)) {
      const strings = [...call.text.matchAll(QUOTED)].map((m) => m[1]!);
      const argvText = /\[(.*?)\]/.exec(call.text)?.[1] ?? "";
      exec.set(call.pid, { file: strings[0] ?? "", argv: [...argvText.matchAll(QUOTED)].map((m) => m[1]!) });
    }
    const child = /^(?:clone3?|fork|vfork)\(.*\)\s+= (\d+)$/.exec(call.text);
    if (child) parent.set(Number(child[1]), call.pid);
    const open = /^(?:open|openat|openat2)\((?:[^",]+, )?"((?:[^"\\]|\\.)*)"/.exec(call.text);
    if (open) opens.push({ pid: call.pid, text: open[1]! });
  }
  const programOf = (pid: number): Program | undefined => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && hops < 1000; p = parent.get(p), hops++) {
      const program = exec.get(p);
      if (program) return program;
    }
    return undefined;
  };
  return { programOf, opens };
}

/** Offrun's own processes: node, unless it is running one of the pinned agent CLIs (the Codex launcher is a node script). */
function isOffrunProcess(program: Program | undefined): boolean {
  if (!program || path.basename(program.file) !== "node") return false;
  const script = program.argv[1] ?? "";
  return !script.includes(`${path.sep}.test-clis${path.sep}`);
}

const resultsSchema = z.array(
  z.object({ args: z.array(z.string()), status: z.number().nullable(), stdout: z.string(), stderr: z.string() }),
);

/** Runs each offrun command in turn, from one node process, so one strace session sees them all. */
const DRIVER = `
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
const [bin, out, commands] = process.argv.slice(2);
const results = JSON.parse(commands).map((args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120000 });
  return { args, status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
});
writeFileSync(out, JSON.stringify(results));
`;

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(value), { mode: 0o600 });
}

/** A signed-in Claude home, as the CLI leaves it: a subscription token and the account in .claude.json. */
async function fakeClaudeLogin(credentialsDir: string, claudeJson: string, email: string): Promise<void> {
  const oauth = { accessToken: "fake", refreshToken: "fake", expiresAt: 4_102_444_800_000, scopes: ["user:inference"] };
  await writeJson(path.join(credentialsDir, ".credentials.json"), {
    claudeAiOauth: { ...oauth, subscriptionType: "max" },
  });
  await writeJson(claudeJson, { oauthAccount: { emailAddress: email, organizationName: "Test Org" } });
}

let sandbox: Sandbox;
afterEach(async () => {
  await sandbox?.cleanup();
});

(onLinux ? test : test.skip)(
  `no Offrun process opens a credentials file during any account command${onLinux ? "" : " [skipped: strace runs only on Linux]"}`,
  async () => {
    const strace = await execa("strace", ["-V"], { reject: false }).catch(() => undefined);
    if (!strace || strace.exitCode !== 0) throw new Error("strace is needed for this test: apt-get install strace");
    sandbox = await makeSandbox("offrun-cred-");
    const { home, offrunHome, dir } = sandbox;

    // The Default Claude login lives in $HOME/.claude, its .claude.json beside it in $HOME.
    await fakeClaudeLogin(path.join(home, ".claude"), path.join(home, ".claude.json"), "default@example.com");
    // An existing Claude home to adopt, and a spare one Offrun made earlier (to be purged).
    const adopted = path.join(dir, "claude-mine");
    await fakeClaudeLogin(adopted, path.join(adopted, ".claude.json"), "mine@example.com");
    const spare = path.join(offrunHome, "accounts", "claude", "spare");
    await fakeClaudeLogin(spare, path.join(spare, ".claude.json"), "spare@example.com");
    // The Default Codex login via CODEX_HOME (ChatGPT), and an added one Offrun made earlier (API key).
    const codexDefault = path.join(dir, "codex-default");
    await writeJson(path.join(codexDefault, "auth.json"), {
      OPENAI_API_KEY: null,
      tokens: { id_token: fakeJwt({ email: "codex@example.com" }), access_token: "fake", refresh_token: "fake" },
      last_refresh: "2026-01-01T00:00:00Z",
    });
    const codexWork = path.join(offrunHome, "accounts", "codex", "work");
    await writeJson(path.join(codexWork, "auth.json"), { OPENAI_API_KEY: "sk-fake-0000000000000000" });

    const hasQuota = (await execa(process.execPath, [OFFRUN_BIN, "quota", "--help"], { reject: false })).exitCode === 0;
    const commands = [
      ["logins", "add", "codex", "work", "--no-login"],
      ["logins", "add", "claude", "mine", "--home", adopted, "--no-login"],
      ["logins", "add", "claude", "spare", "--no-login"],
      ["logins"],
      ["logins", "--json"],
      ["logins", "login", "claude", "mine"],
      ["logins", "login", "codex", "work"],
      // `offrun quota` comes with the quota work; until it is in this build there is nothing to check.
      ...(hasQuota ? [["quota", "--json"]] : []),
      ["logins", "rm", "claude", "mine", "--purge"],
      ["logins", "rm", "claude", "spare", "--purge"],
      ["logins", "rm", "codex", "work"],
      // Ends a companion any command may have started, so that strace (which waits for every traced process) ends.
      ["companion", "stop"],
    ];
    const driver = path.join(dir, "driver.mjs");
    await fs.writeFile(driver, DRIVER);
    const log = path.join(dir, "strace.log");
    const out = path.join(dir, "results.json");
    const env = {
      ...sandbox.env,
      OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
      OFFRUN_CODEX_BIN: CODEX_BIN,
      CODEX_HOME: codexDefault,
      NO_COLOR: "1",
    };
    const traced = await execa(
      "strace",
      [...STRACE_ARGS, "-o", log, process.execPath, driver, OFFRUN_BIN, out, JSON.stringify(commands)],
      { env, extendEnv: false, reject: false, timeout: 300_000, cwd: dir, stdin: "ignore" },
    );
    // strace fails here when ptrace is not allowed (a container without CAP_SYS_PTRACE): say so.
    if (traced.exitCode !== 0)
      throw new Error(`strace exited ${traced.exitCode}: ${String(traced.stderr).slice(-2000)}`);

    const results = resultsSchema.parse(JSON.parse(await fs.readFile(out, "utf8")));
    for (const result of results) {
      if (result.status !== 0) throw new Error(`offrun ${result.args.join(" ")} failed: ${result.stderr}`);
    }
    const listing = results.find((r) => r.args.join(" ") === "logins --json")!;
    const logins = z
      .object({
        accounts: z.array(
          z.object({
            harness: z.string(),
            label: z.string(),
            signedIn: z.boolean().optional(),
            email: z.string().optional(),
            detail: z.string().optional(),
          }),
        ),
      })
      .parse(JSON.parse(listing.stdout)).accounts;
    // Only the two CLIs whose homes this test fakes; the other harnesses' Default logins are listed too.
    const faked = logins.filter((a) => a.harness === "claude" || a.harness === "codex");
    const who = Object.fromEntries(faked.map((a) => [`${a.harness}/${a.label}`, [a.signedIn, a.email ?? a.detail]]));
    expect(who).toEqual({
      "claude/default": [true, "default@example.com"],
      "claude/mine": [true, "mine@example.com"],
      "claude/spare": [true, "spare@example.com"],
      "codex/default": [true, "ChatGPT"],
      "codex/work": [true, "API key"],
    });
    const login = results.find((r) => r.args.join(" ") === "logins login claude mine")!;
    expect(login.stdout).toContain(`CLAUDE_CONFIG_DIR=${adopted} `);
    expect(login.stdout).toContain("auth login");
    await expect(fs.stat(adopted)).resolves.toBeTruthy(); // adopted: kept even with --purge
    await expect(fs.stat(spare)).rejects.toThrow(); // made by Offrun: purged

    const { programOf, opens } = programsAndOpens(parseStraceCalls(await fs.readFile(log, "utf8")));
    const inSandbox = (file: string) => !path.isAbsolute(file) || file.startsWith(dir);
    const credentialOpens = opens.filter((o) => CREDENTIAL_FILE.test(o.text) && inSandbox(o.text));
    const byOffrun = credentialOpens
      .filter((o) => isOffrunProcess(programOf(o.pid)))
      .map((o) => `pid ${o.pid} (${programOf(o.pid)?.argv.join(" ")}) opened ${o.text}`);
    expect(byOffrun).toEqual([]);

    // The trace is real: the CLIs themselves did read their credentials, and Offrun's own pids
    // (threads included) show up opening the non-secret .claude.json.
    const byClis = credentialOpens.map((o) => path.basename(programOf(o.pid)?.file ?? ""));
    expect(byClis).toContain("claude");
    expect(byClis.some((name) => name.startsWith("codex"))).toBe(true);
    const offrunClaudeJson = opens.filter((o) => o.text.endsWith(".claude.json") && isOffrunProcess(programOf(o.pid)));
    expect(offrunClaudeJson.length).toBeGreaterThan(0);
  },
  300_000,
);

/** An unsigned JWT like the id token Codex stores after a ChatGPT sign-in. */
function fakeJwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${part({ alg: "none" })}.${part({ ...claims, "https://api.openai.com/auth": { chatgpt_plan_type: "plus" } })}.sig`;
}
