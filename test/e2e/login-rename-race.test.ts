import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";

// One writer (docs/architecture.md): `accounts rename` checked that no agent on the login was busy, then wrote
// their records, with no lock shared with the companion. A turn that started in between ran under
// the old name, the rename overwrote the turn's record with a stale copy, and the turn's end wrote
// the old name back: the agent then named a login that no longer existed. The rename now goes
// through the companion, under the turn locks of the login's agents.

let world: World;
beforeAll(async () => {
  world = await claudeWorld("offrun-rename-race-");
});
afterAll(async () => {
  await world.close();
});

interface Shown {
  agent: { account: string; status: string; turns: number };
  events: { type: string; outcome?: string }[];
}

test("a rename while a turn starts on that login: the turn runs, and the agent names a login that exists", async () => {
  const home = path.join(world.box.dir, "claude-work");
  await fs.mkdir(home, { recursive: true });
  expect(await world.offrun(["logins", "add", "claude", "work", "--home", home, "--no-login"])).toSucceed();
  world.server.script({ kind: "text", text: "Warmed up." });
  expect(await world.offrun(["start", "--wait", "--login", "work", "--name", "relay", "warm up"])).toSucceed();

  let label = "work";
  const outcomes: string[] = [];
  for (let round = 1; round <= 4; round += 1) {
    world.server.script({ kind: "text", text: `Round ${round} done.` });
    const to = `job${round}`;
    const [sent, renamed] = await Promise.all([
      world.offrun(["send", "--wait", "relay", `round ${round}`]),
      world.offrun(["logins", "rename", "claude", label, to]),
    ]);
    expect(sent).toSucceed();
    expect(sent.stdout).toContain(`Round ${round} done.`);
    if (renamed.exitCode === 0) {
      label = to;
      outcomes.push("renamed");
    } else {
      // Refused because the turn had started: said so, and nothing changed.
      expect(renamed.stderr).toMatch(/in the middle of a turn|has agents in a turn/);
      outcomes.push("refused");
    }
    const shown = JSON.parse((await world.offrun(["show", "relay", "--json"])).stdout) as Shown;
    expect(shown.agent).toMatchObject({ account: label, status: "idle", turns: round + 1 });
    expect(shown.events.filter((e) => e.type === "turn_end").map((e) => e.outcome)).toEqual(
      Array.from({ length: round + 1 }, () => "completed"),
    );
    const logins = JSON.parse((await world.offrun(["logins", "--json"])).stdout) as {
      accounts: { harness: string; label: string }[];
    };
    expect(logins.accounts.filter((a) => a.harness === "claude").map((a) => a.label)).toContain(label);
  }
  // Either order is right (here the send usually wins and the rename is refused); what matters is
  // that no round lost anything.
  expect(outcomes).toHaveLength(4);
}, 180_000);
