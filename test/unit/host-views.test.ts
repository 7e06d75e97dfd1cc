import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { AgentRecord } from "../../src/core/foundation/model.js";
import { shellQuote } from "../../src/core/foundation/shell-quote.js";
import { agentDeeplink } from "../../src/core/notify/deeplink.js";
import { sshCommandText, sshShellText } from "../../src/core/remote/hosts-file.js";
import { agentItemId, launchSelection } from "../../src/commands/presenters/agents-launch.js";
import { buildAgentsOverview } from "../../src/commands/presenters/agents-overview.js";
import { groupByHarness } from "../../src/commands/presenters/host-logins.js";
import type { QuotaListRow } from "../../src/core/quota/row.js";
import { agentRecord } from "../helpers/records.js";
import { pinClock } from "../helpers/clock.js";

// Times in this file read on a 24-hour clock, whatever the machine's locale.
pinClock("24h");

// How the Raycast views show another machine's agents and logins beside this machine's.

const NOW = Date.parse("2026-12-02T12:00:00Z");

function record(name: string, project: string, status: AgentRecord["status"]): AgentRecord {
  return agentRecord(project, name, {
    base: "0123456789abcdef",
    port: 4100,
    status,
    createdAt: "2026-12-02T11:00:00Z",
    updatedAt: "2026-12-02T11:30:00Z",
  });
}

const reading = (usedPercent: number) => ({
  kind: "five_hour",
  source: "stream",
  usedPercent,
  resetsAt: "2026-12-02T14:00:00Z",
  observedAt: "2026-12-02T11:59:00Z",
});

describe("the Agents view with hosts", () => {
  const overview = buildAgentsOverview(
    {
      projects: [
        { root: "/srv/app", agents: [record("up", "/srv/app", "idle")], unreadable: [] },
        {
          root: "/srv/app",
          host: "devbox",
          shellAt: (dir) => `ssh -t devbox -- cd ${dir}`,
          agents: [record("up", "/srv/app", "needs-you")],
          unreadable: [{ file: "x.json", problem: "x.json is damaged" }],
        },
      ],
      quotas: [
        { harness: "claude", label: "default", windows: [reading(10)], blocking: reading(10), attempts: [] },
        {
          host: "devbox",
          harness: "claude",
          label: "default",
          windows: [reading(80)],
          blocking: reading(80),
          attempts: [],
        },
      ],
      context: new Map(),
      unreachable: [{ host: "sleepy", message: "timed out" }],
    },
    NOW,
  );

  it("keeps a host's project apart from this machine's project of the same path", () => {
    expect(overview.groups.map((g) => [g.name, g.host])).toEqual([
      ["app on devbox", "devbox"],
      ["app", undefined],
    ]);
    const [remote, local] = overview.groups;
    expect(remote!.needsYou).toBe(1);
    expect(overview.needsYou).toBe(1);
    expect(remote!.agents[0]).toMatchObject({ host: "devbox", ssh: "ssh -t devbox -- cd /srv/app/.worktrees/up" });
    expect(local!.agents[0]!.host).toBeUndefined();
    expect(local!.agents[0]!.ssh).toBeUndefined();
  });

  it("reads each agent's login quota from its own machine", () => {
    const [remote, local] = overview.groups;
    expect(remote!.agents[0]!.login?.usedPercent).toBe(80);
    expect(local!.agents[0]!.login?.usedPercent).toBe(10);
  });

  it("names the host of an unreadable record, and the hosts that did not answer", () => {
    expect(overview.problems).toEqual([{ file: "x.json", host: "devbox", message: "x.json is damaged" }]);
    expect(overview.unreachable).toEqual([{ host: "sleepy", message: "timed out" }]);
  });

  it("opens on the host's agent a notification or the menu bar points at, not the local namesake", () => {
    expect(agentItemId("/srv/app", "up", "devbox")).not.toBe(agentItemId("/srv/app", "up"));
    expect(launchSelection(overview, { project: "/srv/app", agent: "up", host: "devbox" })).toBe(
      agentItemId("/srv/app", "up", "devbox"),
    );
    expect(launchSelection(overview, { project: "/srv/app", agent: "up" })).toBe(agentItemId("/srv/app", "up"));
    expect(launchSelection(overview, { project: "/srv/app", agent: "up", host: "elsewhere" })).toBeUndefined();
  });

  it("puts the host in a notification's deeplink", () => {
    const link = new URL(agentDeeplink({ project: "/srv/app", agent: "up", host: "devbox" }));
    expect(JSON.parse(link.searchParams.get("context") ?? "")).toEqual({
      project: "/srv/app",
      agent: "up",
      host: "devbox",
    });
  });
});

describe("a host's logins", () => {
  const row = (label: string, state: QuotaListRow["signIn"]["state"], usedPercent: number): QuotaListRow => ({
    harness: "claude",
    label,
    displayName: "Claude Code",
    home: `/home/me/.offrun/logins/claude/${label}`,
    windows: [reading(usedPercent)],
    blocking: reading(usedPercent),
    attempts: [],
    headroom: 100 - usedPercent,
    coverage: "percent",
    signIn: { state, ...(state === "signed-out" ? { command: `offrun accounts login claude ${label}` } : {}) },
    pace: {},
  });
  const host = { name: "devbox", destination: "ssh://me@devbox.internal:2222", addedAt: "2026-12-01T00:00:00Z" };

  it("are grouped by CLI, with their quota and a sign-in that runs on the host", () => {
    const groups = groupByHarness(host, [row("default", "signed-in", 23), row("work", "signed-out", 0)], NOW);
    expect(groups).toHaveLength(1);
    const [signedIn, signedOut] = groups[0]!.logins;
    expect(groups[0]!.name).toBe("Claude Code");
    expect(signedIn!.quota.summary).toMatch(/^5-Hour 23% used · resets \d\d:\d\d$/);
    expect(signedOut!.quota.signedOut).toBe(true);
    expect(signedOut!.signInCommand).toBe("ssh -t -p 2222 me@devbox.internal -- offrun accounts login claude work");
  });

  it("use the host's own offrun and ssh config, quoted for the shell", () => {
    const odd = { destination: "devbox", sshConfig: "/Users/me/my ssh/config", offrun: "/opt/off run/bin/offrun" };
    expect(sshCommandText(odd, ["accounts", "login", "claude", "default"])).toBe(
      "ssh -t -F '/Users/me/my ssh/config' devbox -- '/opt/off run/bin/offrun' accounts login claude default",
    );
  });
});

describe("a shell into a host's worktree", () => {
  it("quotes a worktree path with quotes and spaces in it, so the host's shell lands in that folder", async () => {
    const dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), "offrun-sshq-")), "it's here $HOME");
    await fs.mkdir(dir);
    const text = sshShellText({ destination: "devbox" }, dir);
    // The line as this machine's shell splits it: ssh's own words, then the one command for the host.
    const words = (await execa("sh", ["-c", `printf '%s\\0' ${text}`], { timeout: 10_000 })).stdout
      .split("\0")
      .filter(Boolean);
    expect(words.slice(0, 4)).toEqual(["ssh", "-t", "devbox", "--"]);
    expect(words).toHaveLength(5);
    // The host's shell runs it: it goes to the folder and starts the user's shell there.
    const shell = path.join(path.dirname(dir), "print-cwd");
    await fs.writeFile(shell, "#!/bin/sh\npwd\n", { mode: 0o755 });
    const there = await execa("sh", ["-c", words[4]!], { env: { ...process.env, SHELL: shell }, timeout: 10_000 });
    expect(there.stdout).toBe(dir);
  });

  it("leaves plain words as they are and quotes the rest", () => {
    expect(shellQuote("devbox:up")).toBe("devbox:up");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
