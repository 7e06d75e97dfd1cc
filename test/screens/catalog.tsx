import type { ReactElement } from "react";
import AgentLogins from "../../src/commands/agent-accounts.js";
import AgentQuota from "../../src/commands/agent-quota.js";
import Agents from "../../src/commands/agents.js";
import { AddLoginForm } from "../../src/commands/logins/login-forms.js";
import { ChangedFiles, DiffView } from "../../src/commands/agents/agent-detail.js";
import { MessageForm } from "../../src/commands/agents/message-form.js";
import ProjectMemory from "../../src/commands/project-memory.js";
import ReviewChanges from "../../src/commands/review-changes.js";
import SetUpOffrun from "../../src/commands/set-up-offrun.js";
import StartAgent from "../../src/commands/start-agent.js";
import { readAgent } from "../../src/core/records/records.js";
import { loadAgentDetail } from "../../src/commands/presenters/agent-detail-load.js";
import type { Screen } from "../helpers/raycast-api-render.js";
import { SCENE, type Scene } from "./scene.js";

/**
 * Every screen `npm run screens` draws, over the state of scene.ts: the element to render, what it
 * must show before it is drawn, and, for a list, the row to select (as the arrow keys would).
 * Dictate Task is left out: it starts the microphone recorder as it opens.
 */
export interface ScreenSpec {
  name: string;
  /** What the picture shows, for the report and the index page. */
  shows: string;
  element: (scene: Scene) => Promise<ReactElement>;
  /** Resolves once the screen shows what it is for, selecting a row where `select` names one. */
  ready: (screen: Screen) => void;
  select?: string;
  /** Draw the selected row's action panel open, as ⌘K shows it. */
  showActions?: boolean;
}

const loaded = (screen: Screen, type: string) => {
  const root = screen.find(type);
  if (root.props.isLoading) throw new Error(`${type} still loading`);
  return root;
};

const detailOf = (screen: Screen, title: string) =>
  String(screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", title).slots.detail).props.markdown);

export const SCREENS: ScreenSpec[] = [
  {
    name: "agents-needs-you",
    shows: "Agents: every status, the agent waiting for approval selected, its request above the conversation",
    element: async () => <Agents />,
    ready: (screen) => {
      if (!detailOf(screen, SCENE.waiting).includes(SCENE.pendingCommand)) throw new Error("detail not loaded");
    },
  },
  {
    name: "agents-done",
    shows: "Agents: a finished agent selected, its conversation and the metadata (task, login, elapsed, branch)",
    select: SCENE.done,
    element: async () => <Agents />,
    ready: (screen) => {
      if (!detailOf(screen, SCENE.done).includes("Fix the flaky upload test")) throw new Error("detail not loaded");
    },
  },
  {
    name: "agents-failed",
    shows: "Agents: a failed agent selected, its error at the top of the conversation",
    select: SCENE.failed,
    element: async () => <Agents />,
    ready: (screen) => {
      if (!detailOf(screen, SCENE.failed).includes("eslint")) throw new Error("detail not loaded");
    },
  },
  {
    name: "agents-actions",
    shows: "Agents: the waiting agent's actions (⌘K): Send Message, Approve, Deny, Always Allow, submenus, Stop ⌥⌘.",
    showActions: true,
    element: async () => <Agents />,
    ready: (screen) => {
      const row = screen.byTitle("List.Item", SCENE.waiting);
      screen.action(row, "Approve");
      const submenus = screen.findAll("ActionPanel.Submenu", undefined, row.slots.actions);
      if (submenus.some((s) => s.props.isLoading)) throw new Error("submenus still loading");
    },
  },
  {
    name: "send-message",
    shows: "Send Message: the message form of an agent",
    element: async (scene) => {
      const record = await readAgent(scene.repo, SCENE.done);
      return (
        <MessageForm
          record={record}
          title={`Message ${record.name}`}
          submitTitle="Send"
          withDraft
          onSend={async () => false}
        />
      );
    },
    ready: (screen) => void screen.find("Form"),
  },
  {
    name: "add-login",
    shows: "Add Login: the form that adds a login with its own home",
    element: async () => (
      <AddLoginForm
        harness="claude"
        clis={[
          { id: "claude", name: "Claude Code" },
          { id: "codex", name: "Codex" },
        ]}
        onAdded={() => undefined}
      />
    ),
    ready: (screen) => void screen.find("Form"),
  },
  {
    name: "changed-files",
    shows: "Show Changed Files: the agent's changed file with its preview and change",
    element: async (scene) => {
      const record = await readAgent(scene.repo, SCENE.done);
      return <ChangedFiles record={record} load={() => loadAgentDetail(scene.repo, SCENE.done)} />;
    },
    ready: (screen) => void screen.byTitle("List.Item", "src/upload.ts"),
  },
  {
    name: "diff",
    shows: "Show Diff: the diff with old and new line numbers",
    element: async (scene) => {
      const record = await readAgent(scene.repo, SCENE.done);
      return <DiffView record={record} load={() => loadAgentDetail(scene.repo, SCENE.done)} />;
    },
    ready: (screen) => {
      if (!String(loaded(screen, "Detail").props.markdown).includes("tries")) throw new Error("no diff yet");
    },
  },
  {
    name: "start-agent",
    shows: "Start Agent: the form with project, CLI, login, mode and sandbox",
    element: async () => <StartAgent launchType={"userInitiated" as never} arguments={{}} />,
    ready: (screen) => {
      if (screen.findField("project").children.length === 0) throw new Error("no projects yet");
      if (screen.findField("account").children.length === 0) throw new Error("no logins yet");
    },
  },
  {
    name: "agent-accounts",
    shows:
      "Agent Logins: logins per CLI with one status each (share used, Limited, Signed Out), the host that did not answer",
    element: async () => <AgentLogins />,
    ready: (screen) => {
      loaded(screen, "List");
      screen.byTitle("List.Item", "Work");
    },
  },
  {
    name: "menu-bar",
    shows: "Agent Quota: the menu with the agent that needs you (cut to 40 characters) and each login's submenu",
    element: async () => <AgentQuota />,
    ready: (screen) => void loaded(screen, "MenuBarExtra").children.length,
  },
  {
    name: "review-changes",
    shows: "Review Changes: the agents to review, most recently active first",
    element: async () => <ReviewChanges />,
    ready: (screen) => {
      loaded(screen, "List");
      if (screen.findAll("List.Item").length === 0) throw new Error("no agents yet");
    },
  },
  {
    name: "project-memory",
    shows: "Project Memory: the memory files of the project, rendered",
    element: async () => <ProjectMemory />,
    ready: (screen) => {
      loaded(screen, "List");
      screen.byTitle("List.Item", "conventions.md");
    },
  },
  {
    // Last: it installs the bundled CLI (assets/offrun-cli) into the scene's HOME and link folder.
    // No `select`: its list has no onSelectionChange, so the first step is the one shown.
    name: "set-up-offrun",
    shows: "Set Up Offrun: the five steps with their status icons, the first step's detail (the CLI copied)",
    element: async () => <SetUpOffrun />,
    ready: (screen) => {
      loaded(screen, "List");
      if (screen.findAll("List.Item").length !== 5) throw new Error("steps not shown yet");
    },
  },
];
