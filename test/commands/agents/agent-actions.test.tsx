import { AgentActions } from "../../../src/commands/agents/agent-actions.js";
import type { AgentRow } from "../../../src/commands/presenters/agents-overview.js";
import { render } from "../../helpers/raycast-api-render.js";
import { agentRecord } from "../../helpers/records.js";
import { makeFaceSandbox, type FaceSandbox } from "../face-sandbox.js";

// A host's agent has its worktree on the host: this Mac's editor, terminal, Finder and browser
// would open a path of the host's here (whatever a local folder of that name holds).

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

const LOCAL_APPS = ["Open in Editor", "Open in Terminal", "Show in Finder", "Open Dev Server"];

const row = (changes: Partial<AgentRow>): AgentRow => ({
  record: agentRecord("/srv/app", "a1"),
  statusTitle: "Idle",
  elapsed: "1m",
  login: undefined,
  context: undefined,
  ...changes,
});

test.each([
  ["with its ssh entry", { host: "devbox", ssh: "ssh -t devbox 'cd /srv/app/.worktrees/a1 && exec $SHELL -l'" }],
  ["without one", { host: "devbox" }],
])("a host's agent row %s offers no action that opens a local app", async (_label, changes) => {
  const screen = render(<AgentActions row={row(changes)} detail={undefined} isSelected={false} reload={() => {}} />);
  const titles = await screen.waitFor(() => {
    const shown = screen.findAll("Action.CopyToClipboard").map((a) => String(a.props.title));
    expect(shown).toContain("Copy Worktree Path");
    return [...shown, ...screen.findAll("Action.Open").map((a) => String(a.props.title))];
  });
  for (const title of LOCAL_APPS) expect(titles).not.toContain(title);
  expect(screen.findAll("Action.ShowInFinder")).toHaveLength(0);
  expect(screen.findAll("Action.OpenInBrowser")).toHaveLength(0);
  expect(titles.includes("Copy SSH Command")).toBe("ssh" in changes);
  screen.unmount();
});

test("this Mac's agent keeps its local actions", async () => {
  const screen = render(<AgentActions row={row({})} detail={undefined} isSelected={false} reload={() => {}} />);
  await screen.waitFor(() =>
    expect(screen.findAll("Action.Open").map((a) => String(a.props.title))).toEqual([
      "Open in Editor",
      "Open in Terminal",
    ]),
  );
  screen.unmount();
});
