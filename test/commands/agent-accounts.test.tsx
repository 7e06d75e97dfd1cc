import fs from "node:fs/promises";
import AgentLogins from "../../src/commands/agent-accounts.js";
import { addLogin, listLogins } from "../../src/core/logins/store.js";
import { markLimited } from "../../src/core/quota/ledger.js";
import { markSignedIn } from "../../src/core/logins/sign-in.js";
import { runOffrun } from "../helpers/offrun.js";
import { agentRecord } from "../helpers/records.js";
import { writeAgent } from "../../src/core/records/records.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";
import { pinClock } from "../helpers/clock.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
  pinClock("24h");
});
afterEach(async () => {
  await sandbox.cleanup();
});

test("logins per harness with quota; a limited login shows its reset", async () => {
  await addLogin({ harness: "claude", label: "work" });
  const until = new Date(Date.now() + 3_600_000);
  await markLimited({ harness: "claude", label: "work" }, until.toISOString(), "usage limit");
  // A reset on another day names the day (an hour from now crosses midnight after 23:00).
  const shown =
    until.toDateString() === new Date().toDateString()
      ? /^limited until \d\d:\d\d$/
      : /^limited until \w{3} \d\d:\d\d$/;
  const screen = render(<AgentLogins />);
  const claude = await screen.waitFor(() => screen.byTitle("List.Section", "Claude Code"));
  expect(claude.children.map((c) => c.props.title)).toEqual(["Default", "Work"]);
  const work = claude.children[1]!;
  // Beside the detail pane the row has one accessory, the status; its tooltip and the detail say until when.
  const accessories = work.props.accessories as { tag?: { value: string }; tooltip?: string }[];
  expect(accessories).toHaveLength(1);
  expect(accessories[0]!.tag!.value).toBe("Limited");
  expect(accessories[0]!.tooltip).toMatch(shown);
  const quota = screen.find("Metadata.Label", (l) => l.props.title === "Quota", work.slots.detail);
  expect(String(quota.props.text)).toMatch(shown);
  expect(screen.actionsOf(work).map((a) => a.props.title)).toEqual(
    expect.arrayContaining(["Sign In with Terminal", "Set as Default", "Remove Login"]),
  );
  // The Default login is the CLI's own home: it cannot be removed from here.
  expect(screen.actionsOf(claude.children[0]!).map((a) => a.props.title)).not.toContain("Remove Login");
  screen.unmount();
});

test("sign in opens the CLI's own login in Terminal with the login's home", async () => {
  await addLogin({ harness: "claude", label: "work" });
  const screen = render(<AgentLogins />);
  const work = await screen.waitFor(() => screen.byTitle("List.Item", "Work"));
  await screen.press(screen.action(work, "Sign In with Terminal"));
  const opened = await screen.waitFor(() => {
    const call = runtime.calls.find((c) => c.kind === "open");
    if (!call) throw new Error(`not opened; toasts: ${runtime.toasts.map((t) => t.history.join(" / ")).join("; ")}`);
    return call;
  });
  expect(opened.args[1]).toBe("Terminal");
  const script = await fs.readFile(String(opened.args[0]), "utf8");
  const home = (await listLogins("claude")).find((a) => a.label === "work")!.home;
  expect(script).toContain(`export CLAUDE_CONFIG_DIR=${home}`);
  expect(script).toContain(`exec ${sandbox.claudeStub}`);
  screen.unmount();
});

test("remove asks first, then forgets the login (through the companion) and keeps its home", async () => {
  const login = await addLogin({ harness: "claude", label: "work" });
  // The companion removes it, once no turn runs on it: the service the user started.
  expect(await runOffrun(["companion", "start"], { env: sandbox.box.env })).toSucceed();
  const screen = render(<AgentLogins />);
  const work = await screen.waitFor(() => screen.byTitle("List.Item", "Work"));
  await screen.press(screen.action(work, "Remove Login"));
  expect(runtime.alerts[0]!.title).toBe("Remove login work?");
  expect((await listLogins("claude")).map((a) => a.label)).toEqual(["default"]);
  expect((await fs.stat(login.home)).isDirectory()).toBe(true);
  screen.unmount();
});

test("removing a login agents use names them and offers Remove Anyway, not the terminal's --force", async () => {
  const login = await addLogin({ harness: "claude", label: "work" });
  await writeAgent(agentRecord(sandbox.repo, "busy-bee", { account: "work", status: "idle" }));
  expect(await runOffrun(["companion", "start"], { env: sandbox.box.env })).toSucceed();
  const screen = render(<AgentLogins />);
  const work = await screen.waitFor(() => screen.byTitle("List.Item", "Work"));
  await screen.press(screen.action(work, "Remove Login"));
  const asked = await screen.waitFor(() => runtime.alerts[1] ?? Promise.reject(new Error("no second alert")));
  expect(asked.title).toBe("Agents Use Work");
  expect(asked.message).toContain("busy-bee");
  expect(asked.message).toContain("Switch Login…");
  expect(asked.message).not.toMatch(/--force|offrun switch/);
  expect(asked.primaryAction?.title).toBe("Remove Anyway");
  // Answered yes (the stand-in's default): removed, the agent waits, the home stays.
  await screen.waitFor(() =>
    runtime.toasts.some((t) => t.title === "Removed work") ? true : Promise.reject(new Error("not removed yet")),
  );
  expect((await listLogins("claude")).map((a) => a.label)).toEqual(["default"]);
  expect((await fs.stat(login.home)).isDirectory()).toBe(true);
  screen.unmount();
});

test("the cached sign-in shows at once: a signed-out login says so and offers its sign-in first", async () => {
  const gone = await addLogin({ harness: "claude", label: "gone" });
  await addLogin({ harness: "claude", label: "work" });
  await markSignedIn({ harness: "claude", label: "work" });
  // Its home deleted while Offrun knew the login: it cannot run until it signs in again.
  await fs.rm(gone.home, { recursive: true, force: true });
  const screen = render(<AgentLogins />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "Gone"));
  const accessories = item.props.accessories as { tag?: { value: string }; tooltip?: string }[];
  expect(accessories.at(-1)!.tag!.value).toBe("Signed Out");
  expect(accessories.at(-1)!.tooltip).toBe("Sign in: offrun logins login claude gone");
  expect(screen.actionsOf(item)[0]!.props.title).toBe("Sign In with Terminal");
  // A login known to be signed in leads with what one does with it; signing in again stays on offer.
  const work = screen.byTitle("List.Item", "Work");
  expect(screen.actionsOf(work)[0]!.props.title).toBe("Set as Default");
  expect(screen.actionsOf(work).map((a) => a.props.title)).toContain("Sign In with Terminal");
  screen.unmount();
});

test("Add Login adds it through the companion, then opens its sign-in", async () => {
  expect(await runOffrun(["companion", "start"], { env: sandbox.box.env })).toSucceed();
  const screen = render(<AgentLogins />);
  const first = await screen.waitFor(() => screen.byTitle("List.Item", "Default"));
  await screen.press(screen.action(first, "Add Login"));
  await screen.waitFor(() => expect(screen.findField("harness").props.value).toBe("claude"));
  screen.setField("label", "side");
  await screen.settle();
  await screen.press(screen.find("Action.SubmitForm"));
  await screen.waitFor(() => expect(runtime.calls.find((c) => c.kind === "open")).toBeDefined());
  const side = (await listLogins("claude")).find((a) => a.label === "side")!;
  expect((await fs.stat(side.home)).isDirectory()).toBe(true);
  const log = await fs.readFile(`${sandbox.box.offrunHome}/companion.log`, "utf8");
  expect(log).toContain("for a face: login.add claude side");
  screen.unmount();
});
