import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { createElement } from "react";
import { anthropicProtocol } from "../fake-server/anthropic.js";
import { startFakeServer, type FakeServer } from "../fake-server/server.js";
import { CLAUDE_BIN, claudeTestEnv } from "../helpers/claude-env.js";
import { recordingNotifySend, withNotifySend, type RecordingNotifySend } from "../helpers/notify-send.js";
import {
  eventually,
  makeRepo,
  makeSandbox,
  OFFRUN_BIN,
  runOffrun,
  startOffrun,
  type Sandbox,
} from "../helpers/offrun.js";
import { silentServer, startSshd, type TestSshd } from "../helpers/sshd.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import AgentLogins from "../../src/commands/agent-accounts.js";
import Agents from "../../src/commands/agents.js";
import StartAgent from "../../src/commands/start-agent.js";
import { CompanionClient } from "../../src/core/protocol/client.js";

// Agents on another machine: a real OpenSSH server on a loopback port stands for the host, with
// its own HOME and OFFRUN_HOME, and real Claude Code there against the fake model server. This
// machine's offrun reaches it only through `ssh devbox offrun companion stdio`.

interface Listed {
  remote: { host: string; project: string; agent: { name: string; status: string } }[];
  hosts: { host: string; ok: boolean; ms: number; error?: { message: string } }[];
}
interface HostRow {
  name: string;
  state: string;
  sshPid?: number;
  remote?: { version: string };
}

/** A command the CLI asks about in Build mode, which writes a file. */
const writeWith = (file: string) => `node -e "require('fs').writeFileSync('${file}','yes')"`;

describe("remote hosts over ssh", () => {
  let server: FakeServer;
  let local: Sandbox;
  let remote: Sandbox;
  let sshd: TestSshd;
  let remoteRepo: string;
  let remoteEnv: NodeJS.ProcessEnv;
  let localEnv: NodeJS.ProcessEnv;
  let notifySend: RecordingNotifySend;

  const offrun = (...args: string[]) => runOffrun(args, { env: localEnv, cwd: local.home });
  const startOnHost = (name: string, task: string) =>
    offrun("start", "--host", "devbox", "--project", remoteRepo, "--name", name, task);
  /** offrun as a user logged in on the host would run it. */
  const onHost = (...args: string[]) => runOffrun(args, { env: remoteEnv, cwd: remoteRepo });
  const listed = async () => JSON.parse((await offrun("ls", "--json")).stdout) as Listed;
  const statusOf = async (name: string) => (await listed()).remote.find((r) => r.agent.name === name)?.agent.status;
  const waitFor = (name: string, wanted: string) =>
    eventually(async () => ((await statusOf(name)) === wanted ? true : undefined), 90_000, `${name} to be ${wanted}`);
  const hostRows = async () => JSON.parse((await offrun("hosts", "--json")).stdout) as HostRow[];
  /** Raycast's commands run in this process: with this machine's environment, as the extension would. */
  const asThisMachinesFace = async (work: () => Promise<void>) => {
    const saved = { ...process.env };
    Object.assign(process.env, localEnv);
    runtime.reset();
    runtime.preferences = { offrunPath: OFFRUN_BIN };
    try {
      await work();
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  };

  beforeAll(async () => {
    server = await startFakeServer([anthropicProtocol]);
    local = await makeSandbox("offrun-rh-local-");
    remote = await makeSandbox("offrun-rh-host-");
    remoteRepo = await makeRepo(path.join(remote.dir, "app"), remote.env, { "README.md": "# app\n" });
    // The host's PATH finds `offrun` (this build) and node, as an npm -g install would.
    const bin = path.join(remote.dir, "bin");
    await fs.mkdir(bin, { recursive: true });
    await fs.symlink(OFFRUN_BIN, path.join(bin, "offrun"));
    remoteEnv = {
      ...claudeTestEnv({
        serverUrl: server.url,
        home: remote.home,
        tmp: remote.tmp,
        configDir: path.join(remote.home, ".claude"),
      }),
      OFFRUN_HOME: remote.offrunHome,
      OFFRUN_CLAUDE_BIN: CLAUDE_BIN,
      GIT_CONFIG_GLOBAL: remote.env.GIT_CONFIG_GLOBAL,
      GIT_CONFIG_NOSYSTEM: "1",
      LANG: "C.UTF-8",
    };
    remoteEnv.PATH = [bin, path.dirname(process.execPath), remoteEnv.PATH].join(path.delimiter);
    sshd = await startSshd(
      path.join(local.dir, "sshd"),
      Object.fromEntries(Object.entries(remoteEnv).filter((e): e is [string, string] => e[1] !== undefined)),
      ["devbox", "sleepy"],
    );
    notifySend = await recordingNotifySend(local.dir);
    // Every notification delivered, however close together (the default spaces an agent's by 30 s).
    await fs.writeFile(
      path.join(local.offrunHome, "config.json"),
      JSON.stringify({ notifications: { minIntervalSeconds: 0 } }),
    );
    localEnv = withNotifySend(local.env, notifySend);
    expect(await offrun("hosts", "add", "devbox", "devbox", "--ssh-config", sshd.config)).toSucceed();
  }, 120_000);

  afterAll(async () => {
    await offrun("companion", "stop").catch(() => undefined);
    await onHost("companion", "stop").catch(() => undefined);
    await sshd?.close();
    await local?.cleanup();
    await remote?.cleanup();
    await server?.close();
  });

  test("an agent started on the host shows in ls, waits for approval, and is diffed and merged there", async () => {
    server.script({ kind: "shell", command: writeWith("approved.txt") }, { kind: "text", text: "Installed it." });
    const started = await startOnHost("up", "install it");
    expect(started).toSucceed();
    expect(started.stdout).toContain("devbox:up");
    await waitFor("up", "needs-you");

    // The snapshot the menu bar and the Raycast commands read has the host's agent, and what it waits for.
    await eventually(
      async () => {
        const state = JSON.parse(await fs.readFile(path.join(local.offrunHome, "state.json"), "utf8")) as {
          agents: { host?: string; name: string; pending: unknown[] }[];
          quota: { host?: string; harness: string }[];
        };
        const up = state.agents.find((a) => a.host === "devbox" && a.name === "up");
        return up?.pending.length === 1 && state.quota.some((q) => q.host === "devbox") ? true : undefined;
      },
      30_000,
      "the host's agent and logins in state.json",
    );
    const table = (await offrun("ls")).stdout;
    expect(table).toMatch(/^HOST\s+AGENT/m);
    expect(table).toMatch(/devbox\s+devbox:up\s+needs-you/);
    const shown = (await offrun("show", "devbox:up")).stdout;
    expect(shown).toContain("waiting for your approval");
    expect(shown).toContain("offrun approve devbox:up");
    // Nothing ran yet: the file is not in the host's worktree.
    await expect(fs.access(path.join(remoteRepo, ".worktrees", "up", "approved.txt"))).rejects.toThrow();

    expect(await offrun("approve", "devbox:up")).toSucceed();
    await waitFor("up", "idle");
    expect(await fs.readFile(path.join(remoteRepo, ".worktrees", "up", "approved.txt"), "utf8")).toBe("yes");
    expect((await offrun("show", "devbox:up")).stdout).toContain("Installed it.");

    const diff = await offrun("diff", "up", "--host", "devbox", "--stat");
    expect(diff).toSucceed();
    expect(diff.stdout).toContain("approved.txt");
    const merged = await offrun("merge", "devbox:up");
    expect(merged).toSucceed();
    expect(merged.stdout).toContain("Merged");
    const onMain = await execa("git", ["-C", remoteRepo, "show", "HEAD:approved.txt"], {
      env: remote.env,
      reject: false,
    });
    expect(onMain.stdout).toBe("yes");

    const hosts = await hostRows();
    expect(hosts).toEqual([expect.objectContaining({ name: "devbox", state: "connected" })]);
    expect(hosts[0]?.remote?.version).toMatch(/^\d+\.\d+\.\d+/);
  }, 240_000);

  test("Raycast's Agents and Agent Logins show the host's agents and logins, and act on them there", async () => {
    server.script({ kind: "shell", command: writeWith("face.txt") }, { kind: "text", text: "Done from Raycast." });
    expect(await startOnHost("face", "write it from raycast")).toSucceed();
    await waitFor("face", "needs-you");
    await asThisMachinesFace(async () => {
      // As a click on the menu bar's "devbox:face" opens it.
      const launchContext = { project: remoteRepo, agent: "face", host: "devbox" };
      const screen = render(createElement(Agents, { launchContext }));
      const item = await screen.waitFor(() => {
        const found = screen.byTitle("List.Item", "face");
        screen.action(found, "Approve");
        return found;
      });
      expect(screen.find("List").props.selectedItemId).toBe(`devbox:${remoteRepo}/face`);
      const section = screen.findAll("List.Section").find((s) => s.props.title === "app on devbox")!;
      expect(section.props.subtitle).toBe("1 need you");
      await screen.waitFor(() => {
        const detail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", "face").slots.detail);
        expect(String(detail.props.markdown)).toContain("write it from raycast");
        expect(String(detail.props.markdown)).toContain("Needs approval");
      });
      // Its worktree is on the host: reached with ssh, not opened here.
      const titles = screen.actionsOf(item).map((a) => a.props.title);
      expect(titles).not.toContain("Open in Editor");
      const ssh = String(screen.action(item, "Copy SSH Command").props.content);
      expect(ssh).toContain(`ssh -t -F ${sshd.config} devbox -- 'cd ${remoteRepo}/.worktrees/face`);
      await screen.press(screen.action(item, "Approve"));
      // The approval goes to the host's companion over ssh, then the toast says it went.
      await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Approved for devbox:face"), 30_000);
      screen.unmount();
    });
    await waitFor("face", "idle");
    expect(await fs.readFile(path.join(remoteRepo, ".worktrees", "face", "face.txt"), "utf8")).toBe("yes");

    // The changed files, previewed from the host's worktree: text only, and nothing outside it.
    await fs.writeFile(path.join(remote.home, "secret.txt"), "not for the preview\n");
    await fs.symlink(path.join(remote.home, "secret.txt"), path.join(remoteRepo, ".worktrees", "face", "leak"));
    await asThisMachinesFace(async () => {
      const screen = render(
        createElement(Agents, { launchContext: { project: remoteRepo, agent: "face", host: "devbox" } }),
      );
      const files = await screen.waitFor(() => {
        const item = screen.byTitle("List.Item", "face");
        const detail = screen.find("List.Item.Detail", undefined, item.slots.detail);
        expect(String(detail.props.markdown)).toContain("Done from Raycast.");
        return screen.action(item, "Show Changed Files");
      });
      await screen.press(files);
      const changed = await screen.waitFor(() => screen.byTitle("List.Item", "face.txt"));
      expect(screen.actionsOf(changed).map((a) => a.props.title)).toEqual(["Copy Path", "Refresh"]);
      await screen.waitFor(() => {
        const preview = screen.find(
          "List.Item.Detail",
          undefined,
          screen.byTitle("List.Item", "face.txt").slots.detail,
        );
        expect(String(preview.props.markdown)).toContain("yes");
      });
      screen.unmount();

      // The message box holds the host agent's draft (a review's fixes, say), keeps edits there, and sends.
      const draft = path.join(remoteRepo, ".offrun", "agents", "drafts", "face.md");
      await fs.mkdir(path.dirname(draft), { recursive: true });
      await fs.writeFile(draft, "Please also add a test.\n");
      server.script({ kind: "text", text: "Test added." });
      const boxed = render(
        createElement(Agents, { launchContext: { project: remoteRepo, agent: "face", host: "devbox" } }),
      );
      await boxed.press(await boxed.waitFor(() => boxed.action(boxed.byTitle("List.Item", "face"), "Send Message")));
      await boxed.waitFor(() => expect(boxed.findField("text").props.value).toBe("Please also add a test."), 15_000);
      boxed.setField("text", "Please also add a test, and a note in the README.");
      await eventually(
        async () =>
          (await fs.readFile(draft, "utf8")).startsWith("Please also add a test, and a note") ? true : undefined,
        15_000,
        "the edit to reach the host's draft",
      );
      await boxed.press(boxed.find("Action.SubmitForm"));
      await eventually(
        async () =>
          JSON.stringify(server.turnRequests().at(-1)?.body ?? "").includes("and a note in the README")
            ? true
            : undefined,
        60_000,
        "the message to reach the host's agent",
      );
      await eventually(
        async () =>
          await fs.access(draft).then(
            () => undefined,
            () => true,
          ),
        15_000,
        "the sent draft to be cleared on the host",
      );
      await waitFor("face", "idle");
      boxed.unmount();

      const client = await CompanionClient.connect();
      try {
        const devbox = client.on("devbox");
        await expect(devbox.call("agent.file", { project: remoteRepo, name: "face", path: "leak" })).rejects.toThrow(
          /leads outside face's worktree/,
        );
        await expect(
          devbox.call("agent.file", { project: remoteRepo, name: "face", path: "../../../secret.txt" }),
        ).rejects.toThrow(/inside the worktree/);
      } finally {
        client.close();
      }
    });

    await asThisMachinesFace(async () => {
      const screen = render(createElement(AgentLogins));
      const section = await screen.waitFor(() => {
        const found = screen.findAll("List.Section").find((s) => s.props.title === "Claude Code on devbox");
        if (!found) throw new Error("no section for devbox's Claude Code yet");
        return found;
      }, 30_000);
      const login = screen.byTitle("List.Item", "Default", section.children);
      // Beside the detail pane the row has no subtitle: the login's home is in the detail.
      const detail = screen.find("List.Item.Detail", undefined, login.slots.detail);
      expect(String(detail.props.markdown)).toContain(path.join(remote.home, ".claude"));
      const signIn = String(screen.action(login, "Copy Sign-In Command").props.content);
      expect(signIn).toBe(`ssh -t -F ${sshd.config} devbox -- offrun accounts login claude default`);
      screen.unmount();
    });

    // Start Agent lists the host's projects beside this Mac's, and starts the agent there.
    server.script({ kind: "text", text: "Started from the form." });
    await asThisMachinesFace(async () => {
      const screen = render(createElement(StartAgent, { launchType: "userInitiated" as never, arguments: {} }));
      const onHost = `devbox:${remoteRepo}`;
      await screen.waitFor(() => {
        const sections = screen.findField("project").children;
        const devbox = sections.find((c) => c.props.title === "devbox");
        expect(devbox?.children.map((c) => c.props.value)).toContain(onHost);
      }, 30_000);
      screen.setField("project", onHost);
      // The host's CLIs and logins replace this Mac's.
      await screen.waitFor(() => {
        const logins = screen.findField("account").children.map((c) => String(c.props.title));
        expect(logins).toContain("Claude · Default: quota unknown");
        expect(String(screen.findField("sandbox").children[0]!.props.title)).toBe("Project Default on devbox");
      }, 30_000);
      screen.setField("prompt", "say it from the form");
      screen.setField("name", "formed");
      await screen.settle();
      await screen.press(screen.action(screen.find("Form"), "Start Agent"));
      await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Started devbox:formed"), 60_000);
      screen.unmount();
    });
    await waitFor("formed", "idle");
    expect((await offrun("show", "devbox:formed")).stdout).toContain("Started from the form.");
  }, 240_000);

  test("offrun watch shows a host's events as they come, and the dashboard lists the host's agents", async () => {
    const watching = startOffrun(["watch"], { env: localEnv, cwd: local.home, timeoutMs: 180_000 });
    const { output } = watching;
    try {
      await eventually(async () => (output.stderr.includes("Ctrl-C") ? true : undefined), 30_000, "watch to start");
      expect(output.stderr).toContain("and the agents of devbox");
      server.script({ kind: "text", text: "Watched from afar." });
      expect(await startOnHost("seen", "say it")).toSucceed();
      await eventually(
        async () => (output.stdout.includes("devbox:seen: ‹ agent Watched from afar.") ? true : undefined),
        90_000,
        "the host's event in watch",
      );
    } finally {
      await watching.stop("SIGINT");
    }
    await waitFor("seen", "idle");
    const dashboard = (await offrun()).stdout;
    expect(dashboard).toContain(`devbox:${remoteRepo}`);
    expect(dashboard).toMatch(/devbox:seen\s+idle/);
  }, 240_000);

  test("a connection killed mid-turn loses nothing: the turn finishes on the host and the view catches up once", async () => {
    server.script({ kind: "shell", command: writeWith("later.txt") }, { kind: "text", text: "Finished on the host." });
    expect(await startOnHost("cut", "write later")).toSucceed();
    await waitFor("cut", "needs-you");

    const before = (await hostRows())[0]!;
    expect(before.sshPid).toBeGreaterThan(0);
    process.kill(before.sshPid!, "SIGKILL");
    // While this machine is cut off, the user approves on the host itself; the turn goes on there.
    expect(await onHost("approve", "cut")).toSucceed();
    await eventually(
      async () => {
        const here = JSON.parse((await onHost("ls", "--json")).stdout) as {
          agents: { name: string; status: string }[];
        };
        return here.agents.find((a) => a.name === "cut")?.status === "idle" ? true : undefined;
      },
      90_000,
      "the turn to finish on the host",
    );

    // Reconnected (a new ssh process), and the copy of the log is the host's log, byte for byte.
    await eventually(
      async () => {
        const row = (await hostRows())[0];
        return row?.state === "connected" && row.sshPid !== before.sshPid ? true : undefined;
      },
      60_000,
      "the link to come back",
    );
    const hostLog = path.join(remoteRepo, ".offrun", "chats", "cut.jsonl");
    const mirrors = path.join(local.offrunHome, "hosts", "devbox", "chats");
    await eventually(
      async () => {
        const files = (await fs.readdir(mirrors).catch(() => [] as string[])).filter((f) => f.endsWith("-cut.jsonl"));
        if (files.length !== 1) return undefined;
        const copy = await fs.readFile(path.join(mirrors, files[0]!), "utf8");
        return copy === (await fs.readFile(hostLog, "utf8")) ? true : undefined;
      },
      30_000,
      "the copy to catch up",
    );
    const shown = (await offrun("show", "devbox:cut")).stdout;
    expect(shown.split("Finished on the host.").length - 1).toBe(1);
    // Told once, on this machine, that the host's agent finished.
    await eventually(
      async () => {
        const finished = (await notifySend.calls()).filter(
          (c) => c[0] === "cut (claude) · app on devbox: finished" && c[1] === "Finished on the host.",
        );
        return finished.length >= 1 ? finished : undefined;
      },
      30_000,
      "the finished notification",
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; notify-send was called with ${JSON.stringify(await notifySend.calls())}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const finished = (await notifySend.calls()).filter(
      (c) => c[0] === "cut (claude) · app on devbox: finished" && c[1] === "Finished on the host.",
    );
    expect(finished).toHaveLength(1);
  }, 240_000);

  test("a host that does not answer is named, and does not hold up the one that does", async () => {
    const silent = await silentServer();
    try {
      const config = path.join(local.dir, "sleepy_config");
      await fs.writeFile(
        config,
        (await fs.readFile(sshd.config, "utf8")).replace(new RegExp(`Port ${sshd.port}`, "g"), `Port ${silent.port}`),
      );
      expect(await offrun("hosts", "add", "sleepy", "sleepy", "--ssh-config", config)).toSucceed();
      const ls = await offrun("ls", "--json");
      expect(ls).toSucceed();
      const answers = (JSON.parse(ls.stdout) as Listed).hosts;
      const devbox = answers.find((h) => h.host === "devbox")!;
      const sleepy = answers.find((h) => h.host === "sleepy")!;
      expect(devbox.ok).toBe(true);
      expect(sleepy.ok).toBe(false);
      // Each host has its own time box: the one that answered did so long before the other's ran out.
      expect(devbox.ms).toBeLessThan(sleepy.ms);
      expect(sleepy.ms).toBeLessThan(5_000);
      const text = await offrun("ls");
      expect(text.stdout).toContain("devbox:up");
      expect(text.stdout).toContain("⚠ sleepy did not answer");
    } finally {
      await offrun("hosts", "rm", "sleepy");
      await silent.close();
    }
  }, 120_000);

  test("a host behind the user's ControlMaster shares its master, and the link comes back when the master goes", async () => {
    const config = path.join(local.dir, "mux_config");
    const controlPath = path.join(local.dir, "cm-%C");
    const base = await fs.readFile(sshd.config, "utf8");
    await fs.writeFile(
      config,
      base.replace(
        "Host devbox\n",
        `Host muxbox\n  ControlMaster auto\n  ControlPath ${controlPath}\n  ControlPersist 120\n`,
      ),
    );
    const mux = (command: string) =>
      execa("ssh", ["-F", config, "-O", command, "muxbox"], { reject: false, timeout: 15_000, env: localEnv });
    const answers = async () =>
      ((JSON.parse((await offrun("ls", "--json")).stdout) as Listed).hosts.find((h) => h.host === "muxbox")?.ok ??
      false)
        ? true
        : undefined;
    expect(await offrun("hosts", "add", "muxbox", "muxbox", "--ssh-config", config)).toSucceed();
    try {
      await eventually(answers, 30_000, "muxbox to answer");
      // The link went through a master of the user's own settings.
      const check = await mux("check");
      expect(check.exitCode).toBe(0);
      expect(check.stderr).toMatch(/Master running/);
      const before = (await hostRows()).find((h) => h.name === "muxbox")!;

      // The master goes away (`ssh -O exit`, a network change): the link reconnects through a new one.
      expect((await mux("exit")).exitCode).toBe(0);
      await eventually(
        async () => {
          const row = (await hostRows()).find((h) => h.name === "muxbox");
          return row?.state === "connected" && row.sshPid !== before.sshPid ? true : undefined;
        },
        60_000,
        "the link to come back",
      );
      await eventually(answers, 30_000, "muxbox to answer again");
      expect((await mux("check")).exitCode).toBe(0);
    } finally {
      await offrun("hosts", "rm", "muxbox");
      await mux("exit");
    }
  }, 180_000);

  test("an offrun of another protocol on the host is refused with what to update, never half used", async () => {
    // Older offruns, as the host would have them: one whose hello speaks protocol 0, one that has
    // no hello at all, and one that predates `companion stdio`.
    const dir = path.join(remote.dir, "old-offruns");
    await fs.mkdir(dir, { recursive: true });
    const peer = (hello: string) =>
      [
        "#!/usr/bin/env node",
        'const rl = require("readline").createInterface({ input: process.stdin });',
        'rl.on("line", (line) => {',
        "  const m = JSON.parse(line);",
        "  if (m.id === undefined) return;",
        `  const reply = m.method === "hello" ? ${hello} : { error: { code: -32601, message: "Unhandled method " + m.method } };`,
        '  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...reply }) + "\\n");',
        "});",
        "",
      ].join("\n");
    const write = async (name: string, text: string) => {
      await fs.writeFile(path.join(dir, name), text, { mode: 0o755 });
      return path.join(dir, name);
    };
    const cases = [
      {
        name: "older",
        offrun: await write("older", peer('{ result: { protocol: 0, version: "0.0.9", hostname: "h" } }')),
        says: /offrun 0\.0\.9 on older speaks protocol 0, this one 1: update offrun on older/,
      },
      {
        name: "nohello",
        offrun: await write("nohello", peer('{ error: { code: -32601, message: "Unhandled method hello" } }')),
        says: /offrun on nohello is too old: update offrun on nohello/,
      },
      {
        name: "nostdio",
        offrun: await write("nostdio", "#!/bin/sh\necho \"error: unknown command 'stdio'\" >&2\nexit 1\n"),
        says: /offrun on nostdio is too old to serve other machines: update offrun on nostdio/,
      },
    ];
    for (const { name, offrun: bin, says } of cases) {
      expect(await offrun("hosts", "add", name, "devbox", "--ssh-config", sshd.config, "--offrun", bin)).toSucceed();
      try {
        const shown = await offrun("show", `${name}:x`);
        expect(shown.exitCode).not.toBe(0);
        expect(shown.stderr).toMatch(says);
        // The link stays down with that reason; nothing is asked of it.
        const row = (await hostRows()).find((h) => h.name === name) as HostRow & { error?: { message: string } };
        expect(row.state).not.toBe("connected");
        expect(row.error?.message).toMatch(says);
      } finally {
        await offrun("hosts", "rm", name);
      }
    }
  }, 180_000);

  test("bad hosts get clear messages: unknown host, refused connection, a changed host key, no offrun there", async () => {
    const run = async (name: string, config: string) => {
      expect(await offrun("hosts", "add", name, "devbox", "--ssh-config", config)).toSucceed();
      const result = await offrun("show", `${name}:x`);
      await offrun("hosts", "rm", name);
      expect(result.exitCode).not.toBe(0);
      return result.stderr;
    };
    const base = await fs.readFile(sshd.config, "utf8");
    const write = async (file: string, text: string) => {
      await fs.writeFile(path.join(local.dir, file), text);
      return path.join(local.dir, file);
    };
    // Refused: nothing listens on that port.
    const refused = await write("refused_config", base.replace(/Port \d+/g, "Port 1"));
    expect(await run("refused", refused)).toMatch(/refused the ssh connection/);
    // A host key that does not match what known_hosts holds: never bypassed.
    const otherKnown = path.join(local.dir, "other_known_hosts");
    await execa("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(local.dir, "other_key")]);
    const otherPub = (await fs.readFile(path.join(local.dir, "other_key.pub"), "utf8"))
      .split(" ")
      .slice(0, 2)
      .join(" ");
    await fs.writeFile(otherKnown, `[127.0.0.1]:${sshd.port} ${otherPub}\n`);
    const changed = await write("changed_config", base.replaceAll(sshd.knownHosts, otherKnown));
    expect(await run("changed", changed)).toMatch(/does not trust .*host key/);
    // Unknown host name.
    const unknown = await write(
      "unknown_config",
      base.replace(/HostName 127\.0\.0\.1/g, "HostName no-such-host.invalid"),
    );
    expect(await run("unknown", unknown)).toMatch(/cannot find .* address/);
    // No offrun on the host (a path that is not there).
    expect(
      await offrun("hosts", "add", "bare", "devbox", "--ssh-config", sshd.config, "--offrun", "/nonexistent/offrun"),
    ).toSucceed();
    const bare = await offrun("show", "bare:x");
    expect(bare.stderr).toMatch(/offrun is not installed on bare/);
    const doctor = await offrun("hosts", "doctor", "bare");
    expect(doctor.stdout).toMatch(/✗ offrun missing/);
    expect(doctor.stdout).toMatch(/✓ git/);
    await offrun("hosts", "rm", "bare");
    // And the host that works reports what is there.
    const good = await offrun("hosts", "doctor", "devbox");
    expect(good.stdout).toMatch(/✓ offrun \d/);
    expect(good.stdout).toMatch(/✓ Claude Code/);
  }, 240_000);
});
