import type { execa as Execa } from "execa";

/**
 * No agent CLI without an owner. The companion starts every CLI (and every short command) in a
 * process group of its own, so that a stop ends the CLI's children too; the price is that a CLI
 * does not die with the companion. Killed with SIGKILL, the companion could leave a CLI changing a
 * worktree with nobody recording it, for as long as no new companion started to recover it.
 *
 * The lifeline is one small Node process per companion, in a session of its own, that knows the
 * process groups the companion holds (one line each on its stdin: `+<pgid>` when one starts,
 * `-<pgid>` when it has ended; `+=<pid>` and `-=<pid>` for a single process). Its stdin is the companion's end of a pipe: however the companion
 * ends, kill -9 included, the kernel closes that pipe, and the lifeline then sends SIGTERM to
 * every group it still holds, SIGKILL after LIFELINE_GRACE_MS to what is left, and exits. It works
 * the same on macOS and Linux (Linux's PR_SET_PDEATHSIG has no macOS twin, and a group leader's
 * death signals nobody). A sandboxed CLI goes with it: the sandbox runtime starts bubblewrap with
 * --die-with-parent. The next companion's recovery then closes the turn as interrupted.
 *
 * Only the companion turns it on (`keepGroupsWithThisProcess`): a foreground `offrun` command
 * that spawns git ends with its groups by itself.
 */

/** How long the lifeline waits after SIGTERM before SIGKILL; it is gone within about twice this. */
export const LIFELINE_GRACE_MS = 2_000;

/**
 * The lifeline's program, run as `node -e`: nothing to install or bundle, no file an agent could
 * change. It reads lines of `+pgid`/`-pgid` and, at end of input, ends the groups it holds.
 */
const LIFELINE_SOURCE = `"use strict";
const groups = new Set();
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf("\\n")) >= 0) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    const single = line[1] === "=";
    const id = Number(line.slice(single ? 2 : 1));
    if (!Number.isInteger(id) || id <= 1) continue;
    const target = single ? id : -id;
    if (line[0] === "+") groups.add(target);
    else if (line[0] === "-") groups.delete(target);
  }
});
const signal = (name) => {
  for (const target of groups) {
    try { process.kill(target, name); } catch { groups.delete(target); }
  }
};
const endAll = () => {
  signal("SIGTERM");
  const started = Date.now();
  const poll = setInterval(() => {
    signal(0);
    if (groups.size === 0) process.exit(0);
    if (Date.now() - started >= ${LIFELINE_GRACE_MS}) {
      signal("SIGKILL");
      process.exit(0);
    }
  }, 100);
};
process.stdin.on("end", endAll);
process.stdin.on("error", endAll);
`;

interface Keeper {
  write(line: string): void;
}

let enabled = false;
let keeper: Keeper | undefined;
/** What the lifeline holds, as the lines that hand it over: `<pgid>` for a group, `=<pid>` for one process. */
const held = new Set<string>();

/** The companion, at its start: from now on the groups it spawns end when it does. */
export function keepGroupsWithThisProcess(): void {
  enabled = true;
}

/**
 * Hands a new process group to the lifeline; the function returned takes it back once the group
 * has ended. Does nothing outside the companion, or for a spawn that failed (no pid).
 */
export function holdGroup(pgid: number | undefined, execa: typeof Execa): () => void {
  return hold(pgid === undefined ? undefined : `${pgid}`, execa);
}

/**
 * Hands one process that is no group leader to the lifeline: one the companion did not start
 * itself but a library it runs did, in the companion's own group (the sandbox runtime's socat
 * bridges), which would otherwise outlive a companion killed with SIGKILL.
 */
export function holdProcess(pid: number | undefined, execa: typeof Execa): () => void {
  return hold(pid === undefined ? undefined : `=${pid}`, execa);
}

function hold(entry: string | undefined, execa: typeof Execa): () => void {
  if (!enabled || entry === undefined) return () => undefined;
  held.add(entry);
  // A lifeline started now is handed every group held, this one included.
  if (keeper) keeper.write(`+${entry}\n`);
  else lifeline(execa);
  return () => {
    if (!held.delete(entry)) return;
    keeper?.write(`-${entry}\n`);
  };
}

/** The running lifeline, started (again, with every group held so far) when there is none. */
function lifeline(execa: typeof Execa): Keeper | undefined {
  if (keeper) return keeper;
  let child: ReturnType<typeof Execa>;
  try {
    // Its own session (detached), so that a signal to the companion's group does not reach it; no
    // environment of the companion's (NODE_OPTIONS could load code into it); no timeout, since it
    // lives exactly as long as the companion: its watchdog is the end of its stdin.
    child = execa(process.execPath, ["-e", LIFELINE_SOURCE], {
      env: {},
      extendEnv: false,
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
      cleanup: false,
      reject: false,
      buffer: false,
    });
  } catch {
    return undefined;
  }
  child.unref();
  const stdin = child.stdin!;
  (stdin as unknown as { unref?: () => void }).unref?.();
  stdin.on("error", () => undefined);
  const started: Keeper = {
    write: (line) => {
      if (!stdin.destroyed) stdin.write(line);
    },
  };
  keeper = started;
  // A lifeline that died (killed by hand) is started again at the next spawn, with all it held.
  void child.then(() => {
    if (keeper === started) keeper = undefined;
  });
  for (const entry of held) started.write(`+${entry}\n`);
  return started;
}
