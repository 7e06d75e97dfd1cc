import fs from "node:fs/promises";
import path from "node:path";
import Agents from "../../src/commands/agents.js";
import AgentQuota from "../../src/commands/agent-quota.js";
import { readSnapshot } from "../../src/core/companion/snapshot.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { readAgent, readChat } from "../../src/core/records/records.js";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { eventually, OFFRUN_BIN } from "../helpers/offrun.js";
import { render, type Screen } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { macKey } from "../helpers/store-rules.js";

// Approve / deny / answer from the Agents view, on live turns of the real Claude Code against the
// fake model server: the answer reaches the running CLI through the companion.

let world: World;
const saved: Record<string, string | undefined> = {};
const writeWith = (file: string) => `node -e "require('fs').writeFileSync('${file}','yes')"`;

beforeAll(async () => {
  world = await claudeWorld("offrun-face-appr-", { "README.md": "# demo\n" });
  for (const [key, value] of Object.entries(world.env)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
});
afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await world.close();
});
beforeEach(() => {
  runtime.reset();
  runtime.preferences = { offrunPath: OFFRUN_BIN };
});

async function startNeedingYou(name: string): Promise<void> {
  expect(await world.offrun(["start", "--name", name, "install the deps"])).toSucceed();
  await eventually(
    async () => ((await readAgent(world.repo, name)).status === "needs-you" ? true : undefined),
    60_000,
    `${name} to need you`,
  );
}

async function untilIdle(name: string): Promise<void> {
  await eventually(
    async () => ((await readAgent(world.repo, name)).status === "idle" ? true : undefined),
    60_000,
    `${name} to be idle`,
  );
}

async function agentItem(screen: Screen, name: string, action: string) {
  return screen.waitFor(() => {
    const item = screen.byTitle("List.Item", name);
    screen.action(item, action);
    return item;
  });
}

test("Approve lets the waiting command run in the live turn", async () => {
  world.server.script({ kind: "shell", command: writeWith("approved.txt") }, { kind: "text", text: "Installed." });
  await startNeedingYou("yes");
  const screen = render(<Agents />);
  const item = await agentItem(screen, "yes", "Approve");
  expect(screen.find("List.Section").props.subtitle).toBe("1 need you");
  // ↵ is Send Message whatever has loaded; Approve asks first, showing the command.
  expect(screen.actionsOf(item)[0]!.props.title).toBe("Send Message");
  // Approve and Deny have keys of their own (they had none), neither of them ↵.
  expect(macKey(screen.action(item, "Approve").props.shortcut)).toBe("cmd+opt+y");
  expect(macKey(screen.action(item, "Deny").props.shortcut)).toBe("cmd+opt+n");
  await screen.press(screen.action(item, "Approve"));
  expect(runtime.alerts.at(-1)).toMatchObject({ title: "Approve for yes?" });
  expect(runtime.alerts.at(-1)!.message).toContain("approved.txt");
  await untilIdle("yes");
  const record = await readAgent(world.repo, "yes");
  expect(await fs.readFile(path.join(record.worktree, "approved.txt"), "utf8")).toBe("yes");
  expect((await readChat(world.repo, "yes")).entries.find((e) => e.type === "decision")).toMatchObject({
    decision: "allow",
    by: "user",
  });
  expect(runtime.toasts.at(-1)!.title).toBe("Approved for yes");
  screen.unmount();
});

test("the menu bar answers an approval: its submenu shows the command, and Approve lets it run", async () => {
  world.server.script({ kind: "shell", command: writeWith("from-menu.txt") }, { kind: "text", text: "Done." });
  await startNeedingYou("menu");
  // The menu bar paints from state.json: once the companion has written the agent waiting there.
  await eventually(
    async () =>
      (await readSnapshot(userPaths().state))?.agents.some((a) => a.name === "menu" && a.status === "needs-you")
        ? true
        : undefined,
    30_000,
    "state.json to show menu waiting",
  );
  const screen = render(<AgentQuota />);
  const submenu = await screen.waitFor(() =>
    screen.find(
      "MenuBarExtra.Submenu",
      (s) => s.props.title === "menu" && s.children.some((c) => c.props.title === "Approve"),
    ),
  );
  // What Approve allows is in the submenu, whole, before the choice.
  expect(String(submenu.children[0]!.props.title)).toContain("from-menu.txt");
  expect(submenu.children.map((c) => c.props.title).slice(1)).toEqual(["Approve", "Deny", "Open in Agents"]);
  expect(screen.find("MenuBarExtra").props.title).toMatch(/^⚑1/);
  await screen.press(submenu.children.find((c) => c.props.title === "Approve")!);
  await untilIdle("menu");
  const record = await readAgent(world.repo, "menu");
  expect(await fs.readFile(path.join(record.worktree, "from-menu.txt"), "utf8")).toBe("yes");
  expect(runtime.huds).toContain("Approved for menu");
  screen.unmount();
});

test("Deny refuses it: nothing runs and the turn ends", async () => {
  world.server.script({ kind: "shell", command: writeWith("denied.txt") });
  await startNeedingYou("no");
  const screen = render(<Agents />);
  await screen.press(screen.action(await agentItem(screen, "no", "Deny"), "Deny"));
  // Deny shows what it refuses, whole, before it does (it acted at once).
  expect(runtime.alerts.at(-1)).toMatchObject({ title: "Deny for no?" });
  expect(runtime.alerts.at(-1)!.message).toContain("denied.txt");
  await untilIdle("no");
  const record = await readAgent(world.repo, "no");
  await expect(fs.access(path.join(record.worktree, "denied.txt"))).rejects.toThrow();
  expect((await readChat(world.repo, "no")).entries.find((e) => e.type === "decision")).toMatchObject({
    decision: "deny",
  });
  screen.unmount();
});

test("Answer opens a message box whose text reaches the agent's question", async () => {
  world.server.script({
    kind: "tool",
    name: "AskUserQuestion",
    input: {
      questions: [
        {
          question: "Which package manager should I use?",
          header: "Pkg mgr",
          options: [
            { label: "npm", description: "the default" },
            { label: "pnpm", description: "faster" },
          ],
          multiSelect: false,
        },
      ],
    },
  });
  await startNeedingYou("ask");
  const screen = render(<Agents />);
  const item = await agentItem(screen, "ask", "Answer");
  expect(screen.actionsOf(item).map((a) => a.props.title)).not.toContain("Approve");
  // ↵ stays Send Message once the question has loaded (Answer came first then, and ↵ changed).
  expect(screen.actionsOf(item)[0]!.props.title).toBe("Send Message");
  await screen.press(screen.action(item, "Answer"));
  await screen.waitFor(() => screen.findField("text"));
  screen.setField("text", "pnpm please");
  await screen.settle();
  await screen.press(screen.find("Action.SubmitForm"));
  await untilIdle("ask");
  expect(JSON.stringify(world.server.turnRequests().at(-1)?.body ?? "")).toContain("pnpm please");
  expect(runtime.toasts.at(-1)!.title).toBe("Answered ask");
  screen.unmount();
});
