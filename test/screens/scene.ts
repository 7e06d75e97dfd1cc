import fs from "node:fs/promises";
import path from "node:path";
import { appendChat, listAgents, readAgent, readChat, writeAgent } from "../../src/core/records/records.js";
import { ChatFactsBook } from "../../src/core/companion/chat-facts.js";
import type { Snapshot } from "../../src/core/companion/snapshot.js";
import { countStatuses } from "../../src/core/companion/snapshot.js";
import { snapshotAgent, snapshotQuotas } from "../../src/core/companion/snapshot-writer.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { knownProjects } from "../../src/core/foundation/project.js";
import { writeJsonAtomic } from "../../src/core/foundation/store.js";
import { addLogin } from "../../src/core/logins/store.js";
import { markSignedIn } from "../../src/core/logins/sign-in.js";
import { markLimited, recordObserved } from "../../src/core/quota/ledger.js";
import { makeFaceSandbox, type FaceSandbox } from "../commands/face-sandbox.js";
import { runOffrun } from "../helpers/offrun.js";

/**
 * The state the screenshots show, made the way Offrun makes it, in a fresh HOME and OFFRUN_HOME
 * (test/commands/face-sandbox.ts puts them into this process's environment, where the commands
 * read them): a git project whose first agent ran a real `offrun start` (Claude Code stood in for
 * by a stub replaying a recorded turn), its other agents written by the core's own record writers
 * in each status, several logins with quota readings, a host, and the companion's state.json.
 */

/** What the screens show, by name, for the tests' checks. */
export const SCENE = {
  project: "demo",
  done: "upload",
  waiting: "api-docs",
  working: "retry-backoff",
  limited: "migrate-db",
  failed: "lint-fix",
  pendingCommand: "npm install --save-dev @types/node@20 typescript@5.9 && npm run build",
  host: "devbox",
} as const;

/** OFFRUN_LINK_DIR: where Set Up Offrun links `offrun`, a folder of the scene (else /usr/local/bin). */
const LINK_KEY = "OFFRUN_LINK_DIR";

export interface Scene {
  sandbox: FaceSandbox;
  repo: string;
  cleanup(): Promise<void>;
}

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

export async function buildScene(): Promise<Scene> {
  const sandbox = await makeFaceSandbox({
    files: {
      "README.md": "# demo\n\nUploads files to the archive.\n",
      "src/upload.ts": "export async function upload(file: string) {\n  return send(file);\n}\n",
    },
  });
  const { repo } = sandbox;
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  const started = await runOffrun(["start", "--wait", "--name", SCENE.done, "Fix the flaky upload test"], {
    env,
    cwd: repo,
  });
  if (started.exitCode !== 0) throw new Error(`offrun start failed: ${started.stderr}`);
  const real = await readAgent(repo, SCENE.done);
  // What the agent changed in its worktree: Show Diff and Show Changed Files read it from git.
  await fs.writeFile(
    path.join(real.worktree, "src", "upload.ts"),
    "export async function upload(file: string, tries = 3) {\n  for (let i = 1; ; i++) {\n    try {\n      return await send(file);\n    } catch (error) {\n      if (i === tries) throw error;\n    }\n  }\n}\n",
  );

  await addLogin({ harness: "claude", label: "work" });
  await addLogin({ harness: "codex", label: "personal" });
  await markSignedIn({ harness: "claude", label: "default" });
  await markSignedIn({ harness: "claude", label: "work" });
  const resetsAt = new Date(Date.now() + 2 * 3_600_000).toISOString();
  await recordObserved(
    { harness: "claude", label: "default" },
    {
      windows: [{ kind: "five_hour", usedPercent: 42, resetsAt, source: "stream", observedAt: minutesAgo(1) }],
      observedAt: minutesAgo(1),
    },
  );
  await markLimited(
    { harness: "claude", label: "work" },
    new Date(Date.now() + 3_600_000).toISOString(),
    "usage limit",
  );

  const others = [
    { name: SCENE.waiting, status: "needs-you", task: "Document the upload API in API.md", account: "default" },
    { name: SCENE.working, status: "working", task: "Retry failed uploads with backoff", account: "default" },
    { name: SCENE.limited, status: "limited", task: "Migrate the uploads table to UUIDs", account: "work" },
    { name: SCENE.failed, status: "failed", task: "Fix the lint errors in src/", account: "default" },
  ] as const;
  for (const [index, agent] of others.entries()) {
    await writeAgent({
      ...real,
      ...agent,
      ...(agent.status === "failed" ? { lastError: "The CLI exited with code 1: eslint is not installed." } : {}),
      branch: `offrun/${agent.name}`,
      createdAt: minutesAgo(30 + index * 10),
      updatedAt: minutesAgo(index + 1),
    });
    await appendChat(repo, agent.name, {
      type: "user_message",
      at: minutesAgo(12),
      turn: real.turns,
      text: agent.task,
    });
    await appendChat(repo, agent.name, {
      type: "text",
      at: minutesAgo(11),
      turn: real.turns,
      text: "I read the code around the upload and know what to change.",
    });
  }
  await appendChat(repo, SCENE.waiting, {
    type: "approval_request",
    at: minutesAgo(2),
    turn: real.turns,
    id: "req-1",
    tool: "Bash",
    input: { command: SCENE.pendingCommand },
    text: SCENE.pendingCommand,
    alwaysKey: "Bash(npm install *)",
  });
  await appendChat(repo, SCENE.limited, {
    type: "limit_hit",
    at: minutesAgo(3),
    turn: real.turns,
    message: "Claude usage limit reached for login work.",
  });

  const host = await runOffrun(["hosts", "add", SCENE.host, "ssh://me@devbox.internal"], { env: sandbox.box.env });
  if (host.exitCode !== 0) throw new Error(`offrun hosts add failed: ${host.stderr}`);
  await writeStateSnapshot();
  const savedLinks = process.env[LINK_KEY];
  const links = path.join(sandbox.box.dir, "links");
  await fs.mkdir(links);
  process.env[LINK_KEY] = links;
  const cleanup = async () => {
    if (savedLinks === undefined) delete process.env[LINK_KEY];
    else process.env[LINK_KEY] = savedLinks;
    await sandbox.cleanup();
  };
  return { sandbox, repo, cleanup };
}

/**
 * state.json as the companion writes it (snapshot-writer.ts's pieces, without its file watchers),
 * with this process as the companion, so Agent Quota reads a live one.
 */
export async function writeStateSnapshot(): Promise<void> {
  const agents = [];
  for (const project of await knownProjects()) {
    for (const record of await listAgents(project)) {
      const facts = new ChatFactsBook();
      facts.learn(record.name, record, (await readChat(project, record.name)).entries);
      agents.push(snapshotAgent(record, facts.get(record.name) ?? { pending: [] }));
    }
  }
  const snapshot: Snapshot = {
    version: 1,
    writtenAt: new Date().toISOString(),
    companion: { pid: process.pid, version: "screens", startedAt: minutesAgo(60) },
    counts: countStatuses(agents),
    agents,
    quota: await snapshotQuotas(),
    notifications: [],
  };
  await writeJsonAtomic(userPaths().state, snapshot, { fsync: false });
}
