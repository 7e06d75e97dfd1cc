import fs from "node:fs/promises";
import path from "node:path";
import { listAgents } from "../../src/core/records/records.js";
import { knownProjects, rememberProject } from "../../src/core/foundation/project.js";
import StartAgent from "../../src/commands/start-agent.js";
import { ADD_PROJECT } from "../../src/commands/lib/add-project.js";
import { eventually, makeRepo, runOffrun } from "../helpers/offrun.js";
import { render, type Screen } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// Start Agent on first use: before any agent ran, the Project dropdown was empty ("Choose a
// project") and nothing could be started from Raycast.

let sandbox: FaceSandbox;
afterEach(async () => {
  await sandbox.cleanup();
});

const projectChoices = (screen: Screen) =>
  screen.findAll("Form.Dropdown.Item", () => true, [screen.findField("project")]).map((i) => i.props.value);

async function startCompanion(): Promise<void> {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub, OFFRUN_NO_LOGIN_SERVICE: "1" };
  expect(await runOffrun(["companion", "start"], { env })).toSucceed();
}

async function openForm(): Promise<Screen> {
  const screen = render(<StartAgent launchType={"userInitiated" as never} arguments={{}} />);
  await screen.waitFor(() => expect(screen.find("Form").props.isLoading).toBe(false));
  return screen;
}

test("from a fresh HOME: open Start Agent, pick a folder (Add Project…), type a task, submit, the agent runs", async () => {
  sandbox = await makeFaceSandbox({ known: false });
  await startCompanion();
  const screen = await openForm();
  // No project yet: the dropdown shows Add Project…, and the folder picker with it.
  await screen.waitFor(() => expect(screen.findField("project").props.value).toBe(ADD_PROJECT));
  const picker = screen.findField("folder");
  expect(picker.type).toBe("Form.FilePicker");
  expect(picker.props).toMatchObject({
    canChooseDirectories: true,
    canChooseFiles: false,
    allowMultipleSelection: false,
  });

  screen.setField("folder", [sandbox.repo]);
  await screen.waitFor(() => expect(screen.findField("project").props.value).toBe(sandbox.repo));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)?.title).toBe("Added demo"));
  expect(screen.findAll("Form.FilePicker")).toEqual([]);
  screen.setField("prompt", "fix the flaky upload test");
  await screen.settle();
  await screen.press(screen.action(screen.find("Form"), "Start Agent"));

  const agent = await eventually(
    async () => (await listAgents(sandbox.repo)).find((a) => a.status === "idle"),
    30_000,
    "the agent's first turn to end",
  );
  expect(agent.task).toBe("fix the flaky upload test");
  expect(runtime.toasts.map((t) => t.title)).toContain(`Started ${agent.name}`);
  screen.unmount();

  // Remembered: the next open offers it, first.
  expect(await knownProjects()).toEqual([sandbox.repo]);
  const again = await openForm();
  await again.waitFor(() => expect(projectChoices(again)).toEqual([sandbox.repo, ADD_PROJECT]));
  again.unmount();
});

test("a picked folder that is no git repository says so, and Init Git Repository makes it the project", async () => {
  sandbox = await makeFaceSandbox({ known: false });
  const idea = path.join(sandbox.box.home, "idea");
  await fs.mkdir(idea);
  await fs.writeFile(path.join(idea, "notes.md"), "# idea\n");
  const screen = await openForm();
  screen.setField("folder", [idea]);
  const note = await screen.waitFor(() => screen.byTitle("Form.Description", "Not a Git Repository"));
  expect(note.props.text).toContain(`${idea} is not in a git repository`);
  expect(await knownProjects()).toEqual([]);
  // Submitting now is refused at the project.
  screen.setField("prompt", "sketch the idea");
  await screen.press(screen.action(screen.find("Form"), "Start Agent"));
  await screen.waitFor(() => expect(screen.findField("project").props.error).toBe("Pick the project's folder below"));

  await screen.press(screen.action(screen.find("Form"), "Init Git Repository"));
  const root = await fs.realpath(idea);
  await screen.waitFor(() => expect(screen.findField("project").props.value).toBe(root));
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe("Added idea"));
  // The user's file is theirs to commit: the toast says agents will not see it until then.
  expect(runtime.toasts.at(-1)!.message).toContain("1 file(s) not committed");
  expect((await fs.stat(path.join(idea, ".git"))).isDirectory()).toBe(true);
  expect(await knownProjects()).toEqual([root]);
  expect(screen.findAll("Form.Description", (n) => n.props.title === "Not a Git Repository")).toEqual([]);
  expect(screen.actionsOf(screen.find("Form")).map((a) => a.props.title)).not.toContain("Init Git Repository");
  screen.unmount();
});

test("repositories in the usual code folders are offered after the known projects, most recently changed first", async () => {
  sandbox = await makeFaceSandbox();
  const older = await fs.realpath(await makeRepo(path.join(sandbox.box.home, "code", "older"), sandbox.box.env));
  const past = new Date(Date.now() - 3_600_000);
  await fs.utimes(path.join(older, ".git", "index"), past, past);
  await fs.utimes(path.join(older, ".git"), past, past);
  const newer = await fs.realpath(
    await makeRepo(path.join(sandbox.box.home, "Developer", "org", "newer"), sandbox.box.env),
  );
  await makeRepo(path.join(sandbox.box.home, "projects", "a", "b", "too-deep"), sandbox.box.env);
  const screen = await openForm();
  await screen.waitFor(() => expect(projectChoices(screen)).toEqual([sandbox.repo, newer, older, ADD_PROJECT]));
  const section = screen.find("Form.Dropdown.Section", (n) => n.props.title === "Found on This Mac");
  expect(section.children.map((c) => c.props.title)).toEqual(["newer", "older"]);

  // Picking one works as a known project does: its branches are read for the form.
  screen.setField("project", newer);
  await screen.waitFor(() => expect(screen.findField("base").children.map((c) => c.props.value)).toEqual(["", "main"]));
  screen.unmount();

  // Once known, a found repository is listed once, among the known ones (most recently used first,
  // after the one the form last had selected).
  await rememberProject(older);
  const again = await openForm();
  await again.waitFor(() => expect(projectChoices(again)).toEqual([newer, older, sandbox.repo, ADD_PROJECT]));
  again.unmount();
});

test("two quick presses of Start Agent start one agent, and the form shows it is busy meanwhile", async () => {
  sandbox = await makeFaceSandbox();
  await startCompanion();
  const screen = await openForm();
  await screen.waitFor(() => expect(projectChoices(screen)).toContain(sandbox.repo));
  screen.setField("prompt", "fix the flaky upload test");
  await screen.settle();
  const submit = screen.action(screen.find("Form"), "Start Agent");
  // Two ⌘↵ before the first answer: the second must not start a second agent.
  const first = screen.press(submit);
  const second = screen.press(submit);
  await screen.waitFor(() => expect(screen.find("Form").props.isLoading).toBe(true));
  await Promise.all([first, second]);
  const agents = await eventually(async () => {
    const list = await listAgents(sandbox.repo);
    return list.length > 0 ? list : undefined;
  });
  await screen.waitFor(() => expect(runtime.toasts.at(-1)!.title).toBe(`Started ${agents[0]!.name}`));
  await screen.settle(1_000);
  expect((await listAgents(sandbox.repo)).map((a) => a.name)).toEqual([agents[0]!.name]);
  expect(screen.find("Form").props.isLoading).toBe(false);
  screen.unmount();
});

// What broke: Start Agent ignored where the user was; opened over Finder with a file of a
// repository no agent ran in selected, it offered only the known projects.
test("opened over Finder, the selected file's repository is the project, listed first; outside a repository nothing changes", async () => {
  sandbox = await makeFaceSandbox();
  const other = await fs.realpath(await makeRepo(path.join(sandbox.box.home, "clients", "site"), sandbox.box.env));
  await fs.mkdir(path.join(other, "docs"));
  await fs.writeFile(path.join(other, "docs", "plan.md"), "# plan\n");
  runtime.finderSelection = [path.join(other, "docs", "plan.md")];
  const screen = await openForm();
  await screen.waitFor(() => expect(screen.findField("project").props.value).toBe(other));
  await screen.waitFor(() => expect(projectChoices(screen)).toEqual([other, sandbox.repo, ADD_PROJECT]));
  await screen.waitFor(() => expect(screen.findField("base").children.map((c) => c.props.value)).toEqual(["", "main"]));
  screen.unmount();

  runtime.finderSelection = [sandbox.box.home];
  const outside = await openForm();
  await outside.settle(500);
  expect(runtime.calls.filter((c) => c.kind === "getSelectedFinderItems")).toHaveLength(2);
  expect(outside.findField("project").props.value).toBe(other);
  outside.unmount();
});
