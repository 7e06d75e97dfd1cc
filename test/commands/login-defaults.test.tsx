import fs from "node:fs/promises";
import AgentLogins from "../../src/commands/agent-accounts.js";
import StartAgent from "../../src/commands/start-agent.js";
import { addLogin, defaultLogins, listLogins, removeLogin, setDefaultLogin } from "../../src/core/logins/store.js";
import { readAgent } from "../../src/core/records/records.js";
import { userPaths } from "../../src/core/foundation/paths.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

const env = () => ({ ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub });

test("Set as Default writes the default through the companion, and Start Agent preselects that login", async () => {
  await addLogin({ harness: "claude", label: "work" });
  const screen = render(<AgentLogins />);
  const work = await screen.waitFor(() => screen.byTitle("List.Item", "Work"));
  // No companion: the command does not write accounts.json itself; the failure offers to start it.
  await screen.press(screen.action(work, "Set as Default"));
  const refused = await screen.waitFor(() => {
    const toast = runtime.toasts.at(-1)!;
    expect(toast.title).toBe("Could Not Set the Default");
    return toast;
  });
  expect(refused.primaryAction?.title).toBe("Start Companion");
  expect(await defaultLogins()).toEqual({});

  expect(await runOffrun(["companion", "start"], { env: sandbox.box.env })).toSucceed();
  await screen.press(screen.action(work, "Set as Default"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Work Is the Default"));
  expect(await defaultLogins()).toEqual({ claude: "work" });
  const raw = JSON.parse(await fs.readFile(userPaths().accounts, "utf8")) as { defaults?: Record<string, string> };
  expect(raw.defaults).toEqual({ claude: "work" });
  await screen.waitFor(() => {
    const marked = screen.byTitle("List.Item", "Work");
    expect((marked.props.icon as { source: string; tooltip: string }).tooltip).toBe("Default");
    expect(screen.action(marked, "Stop Using as Default")).toBeDefined();
  });
  screen.unmount();

  const start = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await start.waitFor(() => expect(start.findField("account").props.value).toBe("work"));
  start.unmount();
});

test("without a default, Start Agent leaves the choice to the headroom rule", async () => {
  await addLogin({ harness: "claude", label: "work" });
  await setDefaultLogin({ harness: "claude", label: "work" });
  await setDefaultLogin({ harness: "claude", label: undefined });
  const start = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await start.waitFor(() => expect(start.findField("account").children.length).toBeGreaterThan(1));
  await start.settle(100);
  expect(start.findField("account").props.value).toBe("");
  start.unmount();
});

test("a default that names an unknown login is refused; removing the default login clears it", async () => {
  await expect(setDefaultLogin({ harness: "claude", label: "nobody" })).rejects.toThrow(/no login 'nobody'/);
  await addLogin({ harness: "claude", label: "work" });
  await setDefaultLogin({ harness: "claude", label: "work" });
  await removeLogin({ harness: "claude", label: "work" });
  expect(await defaultLogins()).toEqual({});
});

test("Rename Login renames it, keeps its home, its default mark and its agents", async () => {
  const work = await addLogin({ harness: "claude", label: "work" });
  await setDefaultLogin({ harness: "claude", label: "work" });
  const started = await runOffrun(["start", "--wait", "--login", "work", "--name", "upload", "fix it"], {
    env: env(),
    cwd: sandbox.repo,
  });
  expect(started).toSucceed();

  const screen = render(<AgentLogins />);
  await screen.press(screen.action(await screen.waitFor(() => screen.byTitle("List.Item", "Work")), "Rename Login"));
  await screen.waitFor(() => expect(screen.findField("label").props.value).toBe("work"));
  screen.setField("label", "job");
  await screen.settle();
  await screen.press(screen.find("Action.SubmitForm"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.history.join(" | ")).toContain("Renamed to job"));
  screen.unmount();

  const logins = await listLogins("claude");
  expect(logins.map((a) => a.label)).toEqual(["default", "job"]);
  expect(logins[1]!.home).toBe(work.home);
  expect((await fs.stat(work.home)).isDirectory()).toBe(true);
  expect(await defaultLogins()).toEqual({ claude: "job" });
  expect((await readAgent(sandbox.repo, "upload")).account).toBe("job");
  // The agent's next turn finds its login under the new name.
  const sent = await runOffrun(["send", "--wait", "upload", "go on"], { env: env(), cwd: sandbox.repo });
  expect(sent).toSucceed();
});

test("offrun logins rename and default do the same from the terminal", async () => {
  const run = (...args: string[]) => runOffrun(args, { env: env(), cwd: sandbox.repo });
  expect(await run("logins", "add", "claude", "work", "--no-login")).toSucceed();
  const set = await run("logins", "default", "claude", "work");
  expect(set).toSucceed();
  expect(set.stdout).toContain("preselects login 'work'");
  const renamed = await run("logins", "rename", "claude", "work", "job");
  expect(renamed).toSucceed();
  const listed = JSON.parse((await run("logins", "--json")).stdout) as { defaults: Record<string, string> };
  expect(listed.defaults).toEqual({ claude: "job" });
  expect((await run("logins", "rename", "claude", "default", "mine")).exitCode).toBe(2);
  expect((await run("logins", "rename", "claude", "job", "Bad Name")).exitCode).toBe(2);
  expect((await run("logins", "default", "claude")).exitCode).toBe(2);
  const cleared = await run("logins", "default", "claude", "--clear");
  expect(cleared).toSucceed();
  expect(JSON.parse((await run("logins", "--json")).stdout)).toMatchObject({ defaults: {} });
});
