import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { listAgentsDetailed, readAgent } from "../../src/core/records/records.js";
import { agentRecordSchema } from "../../src/core/foundation/model.js";
import { ChatMirror, mirrorFile } from "../../src/core/companion/mirror.js";
import type { HostLink } from "../../src/core/remote/link.js";
import { agentRecord } from "../helpers/records.js";

// An agent's name becomes file names (its record, its chat log, a host's mirror
// copy): a name from a repository's committed record or from another host's reply is input.

const HOSTILE = ["/../../../x/owned", "../owned", ".hidden", "a/b", "UPPER", ""];

let dir: string;
let saved: string | undefined;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-names-"));
  saved = process.env.OFFRUN_HOME;
  process.env.OFFRUN_HOME = path.join(dir, "oh");
});
afterEach(async () => {
  if (saved === undefined) delete process.env.OFFRUN_HOME;
  else process.env.OFFRUN_HOME = saved;
  await fs.rm(dir, { recursive: true, force: true });
});

test.each(HOSTILE)("a record named %j is refused", (name) => {
  expect(agentRecordSchema.safeParse(agentRecord("/work/app", name)).success).toBe(false);
  expect(() => mirrorFile("devbox", "/work/app", name)).toThrow(/named an agent/);
});

test("a committed record that is not what Offrun would have written for its file is reported unreadable, not used", async () => {
  const project = path.join(dir, "repo");
  const agents = path.join(project, ".offrun", "agents");
  await fs.mkdir(agents, { recursive: true });
  await fs.writeFile(path.join(agents, "x.json"), JSON.stringify(agentRecord(project, "other")));
  await fs.writeFile(path.join(agents, "y.json"), JSON.stringify(agentRecord(project, "../../owned")));
  // A worktree elsewhere (`discard --force` deleted it), or another checkout's record.
  await fs.writeFile(path.join(agents, "z.json"), JSON.stringify(agentRecord(project, "z", { worktree: "../.." })));
  await fs.writeFile(path.join(agents, "w.json"), JSON.stringify(agentRecord("/home/someone/repo", "w")));
  await fs.writeFile(path.join(agents, "ok.json"), JSON.stringify(agentRecord(project, "ok")));
  const listing = await listAgentsDetailed(project);
  expect(listing.agents.map((agent) => agent.name)).toEqual(["ok"]);
  expect(listing.unreadable.map((entry) => path.basename(entry.file)).sort()).toEqual([
    "w.json",
    "x.json",
    "y.json",
    "z.json",
  ]);
  expect(listing.unreadable.find((entry) => entry.file.endsWith("z.json"))?.problem).toMatch(
    /is not inside .*\.worktrees/,
  );
  await expect(readAgent(project, "z")).rejects.toThrow(/No agent named 'z'/);
  await expect(readAgent(project, "x")).rejects.toThrow(/No agent named 'x'/);
});

test("a host whose listing names an agent '/../../../x/owned' writes nothing outside its folder", async () => {
  const hostile = { ...agentRecord("/srv/app", "ok"), name: "/../../../x/owned" };
  const logged: string[] = [];
  const link = {
    host: { name: "devbox", destination: "devbox" },
    state: { state: "connected" },
    call: async (method: string, params: { after?: string }) => {
      if (method === "agents.list")
        return {
          hostname: "devbox",
          projects: [{ root: "/srv/app", agents: [{ record: hostile, chatBytes: 100 }], unreadable: [] }],
        };
      // Asked without a token, a host answers at once; after that, nothing changes.
      if (method === "changes.wait") return params.after === undefined ? { token: "t0" } : new Promise(() => undefined);
      if (method === "chat.read")
        return { lines: ['{"type":"text","text":"owned","at":"2026-01-01T00:00:00Z"}'], next: 100, size: 100 };
      throw new Error(`unexpected ${method}`);
    },
  } as unknown as HostLink;
  const mirror = new ChatMirror(link, { onEvent: () => undefined, log: (line) => logged.push(line) });
  mirror.follow();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  await mirror.close();
  const written = await fs.readdir(dir, { recursive: true });
  expect(written.filter((entry) => entry.includes("owned"))).toEqual([]);
  expect(logged.join("\n")).toMatch(/devbox/);
});
