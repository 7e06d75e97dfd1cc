import Agents from "../../src/commands/agents.js";
import AgentLogins from "../../src/commands/agent-accounts.js";
import { START_COMPANION_COMMAND } from "../../src/commands/presenters/companion-start.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// With hosts added but this machine's companion down, nothing can reach them: the Raycast views
// say so per host, with the fix, and still show this machine's own agents and logins.

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
  expect(await runOffrun(["hosts", "add", "devbox", "ssh://me@devbox.internal"], { env: sandbox.box.env })).toSucceed();
});
afterEach(async () => {
  await sandbox.cleanup();
});

test("Agents names the host it cannot reach and says to start the companion", async () => {
  const screen = render(<Agents />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "Did Not Answer"));
  expect(screen.find("List.Section", (s) => s.props.title === "devbox").children).toContain(item);
  const detail = screen.find("List.Item.Detail", undefined, item.slots.detail);
  expect(String(detail.props.markdown)).toContain(
    "the companion, which keeps the connections to the hosts, is not running",
  );
  expect(String(detail.props.markdown)).toContain(START_COMPANION_COMMAND);
  expect(screen.action(item, "Copy Doctor Command").props.content).toBe("offrun hosts doctor devbox");
  expect(screen.find("List").props.isShowingDetail).toBe(true);
  screen.unmount();
});

test("Agent Logins lists this Mac's logins and names the host it cannot reach", async () => {
  const screen = render(<AgentLogins />);
  await screen.waitFor(() => {
    const item = screen.byTitle("List.Item", "Did Not Answer");
    const detail = screen.find("List.Item.Detail", undefined, item.slots.detail);
    expect(String(detail.props.markdown)).toContain("is not running");
    expect(String(detail.props.markdown)).toContain(START_COMPANION_COMMAND);
    const sections = screen.findAll("List.Section").map((s) => String(s.props.title));
    expect(sections).toContain("Claude Code");
    expect(sections).toContain("devbox");
  });
  screen.unmount();
});
