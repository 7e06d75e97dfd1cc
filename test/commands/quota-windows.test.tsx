import AgentLogins from "../../src/commands/agent-accounts.js";
import AgentQuota from "../../src/commands/agent-quota.js";
import Agents from "../../src/commands/agents.js";
import { recordObserved } from "../../src/core/quota/ledger.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { writeStateSnapshot } from "../screens/scene.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";
import { pinClock } from "../helpers/clock.js";

// A window read "5-hour 61% · resets 21:00" in the menu bar, "23% used, resets 21:00" in
// Agent Logins and the Agents detail, "23% of five_hour, resets 09:00 PM" in `offrun logins` and
// "five_hour 23% 3/2/2026, 9:00:00 PM" in `offrun quota`. Every face now writes it one way, saying
// the percent is the share used.

/** "5-Hour 23% used · resets 21:00", or "… resets Tue 21:00" when the reset is past midnight. */
const FORM = /5-Hour 23% used · resets (Sun |Mon |Tue |Wed |Thu |Fri |Sat )?\d\d:\d\d/;

let sandbox: FaceSandbox;
beforeAll(async () => {
  sandbox = await makeFaceSandbox();
  pinClock("24h");
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  expect(
    await runOffrun(["start", "--wait", "--name", "upload", "fix the upload"], { env, cwd: sandbox.repo }),
  ).toSucceed();
  const now = Date.now();
  await recordObserved(
    { harness: "claude", label: "default" },
    {
      windows: [
        {
          kind: "five_hour",
          usedPercent: 23,
          resetsAt: new Date(now + 2 * 3_600_000).toISOString(),
          source: "stream",
          observedAt: new Date(now).toISOString(),
        },
      ],
      observedAt: new Date(now).toISOString(),
    },
  );
  await writeStateSnapshot();
}, 120_000);
afterAll(async () => {
  await sandbox.cleanup();
});

test("the menu bar writes the window in the form", async () => {
  const screen = render(<AgentQuota />);
  const login = await screen.waitFor(() =>
    screen.find("MenuBarExtra.Submenu", (s) => String(s.props.title).startsWith("Default · 5-Hour 23% used")),
  );
  expect(login.children.map((c) => String(c.props.title))).toEqual([
    expect.stringMatching(new RegExp(`^${FORM.source}$`)),
  ]);
  screen.unmount();
});

test("Agent Logins writes the window in the form", async () => {
  const screen = render(<AgentLogins />);
  const row = await screen.waitFor(() => screen.byTitle("List.Item", "Default"));
  const quota = screen.find("Metadata.Label", (l) => l.props.title === "Quota", row.slots.detail);
  expect(String(quota.props.text)).toMatch(new RegExp(`^${FORM.source}$`));
  screen.unmount();
});

test("the Agents detail's metadata writes the window in the form", async () => {
  const screen = render(<Agents />);
  const row = await screen.waitFor(() => screen.byTitle("List.Item", "upload"));
  const quota = await screen.waitFor(() =>
    screen.find("Metadata.Label", (l) => l.props.title === "Quota", row.slots.detail),
  );
  expect(String(quota.props.text)).toMatch(new RegExp(`^${FORM.source}$`));
  screen.unmount();
});

test("offrun logins and offrun quota write the window in the form", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  const logins = await runOffrun(["logins"], { env, cwd: sandbox.repo });
  expect(logins).toSucceed();
  expect(logins.stdout.split("\n").find((l) => l.includes("default"))).toMatch(FORM);
  const quota = await runOffrun(["quota"], { env, cwd: sandbox.repo });
  expect(quota).toSucceed();
  expect(quota.stdout.split("\n").find((l) => l.includes("Claude Code · default"))).toMatch(FORM);
}, 60_000);
