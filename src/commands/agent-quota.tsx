import {
  Clipboard,
  Color,
  Icon,
  Keyboard,
  LaunchType,
  MenuBarExtra,
  launchCommand,
  openExtensionPreferences,
  showHUD,
  showInFinder,
} from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { isAlive, runningCompanionPid } from "../core/foundation/pids.js";
import { readSnapshotExplained } from "../core/companion/snapshot.js";
import { shorten } from "../core/foundation/format.js";
import { buildMenuBar, type MenuAgent } from "./presenters/menu-bar.js";
import { describeError } from "../core/foundation/errors.js";
import { viewFileProblems } from "./presenters/file-problems.js";
import { keptStateProblems } from "../core/foundation/problem-register.js";
import { listHarnesses } from "../harnesses/registry.js";
import { START_COMPANION_COMMAND, START_COMPANION_CONTEXT, withAgentCompanion } from "./lib/companion.js";

/**
 * Agent Quota (menu bar, every minute): paints from the companion's snapshot and the pid file
 * alone, so it is done at once whatever state the companion is in, on a background refresh as
 * when opened. It never starts the companion: when it is down, the menu says so and offers
 * Start Companion (which opens Set Up Offrun to start the login service) and the command to copy.
 */

async function loadMenu() {
  const [read, harnesses, pid, kept] = await Promise.all([
    readSnapshotExplained(),
    listHarnesses({ tolerant: true }),
    runningCompanionPid(),
    keptStateProblems().catch(() => []),
  ]);
  const alive = pid !== undefined || (read.snapshot !== undefined && isAlive(read.snapshot.companion.pid));
  return {
    model: buildMenuBar(read.snapshot, {
      now: Date.now(),
      harnessNames: new Map(harnesses.map((h) => [h.id, h.displayName])),
      companionAlive: alive,
    }),
    problem: read.problem,
    fileProblems: viewFileProblems(kept),
  };
}

/**
 * The characters a menu item's title and subtitle share: macOS widens the whole menu to its widest
 * item, so one long pending command would stretch every row. The full text goes in the tooltip. A
 * login's submenu is a menu of its own and keeps its lines whole: one is the command to sign in.
 */
export const MENU_ITEM_CHARS = 40;

/** A login's row ("Work · 5-Hour 42% used · resets Tue 09:00"): its reset is what the row is for. */
const LOGIN_ROW_CHARS = 52;

/** A title and subtitle cut to MENU_ITEM_CHARS together, the title first. */
export function menuText(title: string, subtitle?: string): { title: string; subtitle?: string } {
  const shownTitle = shorten(title, MENU_ITEM_CHARS);
  if (subtitle === undefined) return { title: shownTitle };
  // Raycast draws the subtitle a space after the title.
  const room = MENU_ITEM_CHARS - [...shownTitle].length - 1;
  return room > 1 ? { title: shownTitle, subtitle: shorten(subtitle, room) } : { title: shownTitle };
}

/** Opens another command; `context` reaches it as its launch context (Agents selects that agent). */
const openCommand = (name: string, context?: Record<string, unknown>) => () =>
  void launchCommand({ name, type: LaunchType.UserInitiated, ...(context ? { context } : {}) }).catch(() =>
    showHUD(`Could not open ${name}`),
  );

/** Approves or denies what `agent` waits for, through the companion that runs it; says how it went in a HUD. */
async function decide(agent: MenuAgent, deny: boolean): Promise<void> {
  try {
    await withAgentCompanion(agent, (c) =>
      c.call("agent.approve", {
        project: agent.project,
        name: agent.agent,
        ...(agent.requestId ? { requestId: agent.requestId } : {}),
        deny,
      }),
    );
    await showHUD(`${deny ? "Denied" : "Approved"} for ${agent.name}`);
  } catch (error) {
    await showHUD(`Could not ${deny ? "deny" : "approve"} for ${agent.name}: ${describeError(error)}`);
  }
}

export default function AgentQuota() {
  const { data, isLoading, revalidate } = useCachedPromise(loadMenu, [], { keepPreviousData: true });
  const model = data?.model;
  const icon = model?.companionDown
    ? { source: Icon.ExclamationMark, tintColor: Color.Red }
    : model?.state === "needs-you"
      ? { source: Icon.Bell, tintColor: Color.Orange }
      : model?.state === "limited"
        ? { source: Icon.Hourglass, tintColor: Color.Yellow }
        : Icon.Gauge;
  return (
    <MenuBarExtra isLoading={isLoading} icon={icon} title={model?.title} tooltip={model?.tooltip ?? "Offrun"}>
      {data?.problem ? (
        <MenuBarExtra.Item
          {...menuText("Cannot Read Offrun's State", data.problem)}
          tooltip={data.problem}
          icon={Icon.ExclamationMark}
          onAction={revalidate}
        />
      ) : null}
      {data && data.fileProblems.length > 0 ? (
        <MenuBarExtra.Section title="Offrun's Files">
          {data.fileProblems.map((problem) => (
            <MenuBarExtra.Item
              key={problem.id}
              icon={problem.state === "Damaged" ? { source: Icon.Warning, tintColor: Color.Orange } : Icon.Info}
              {...menuText(problem.title, problem.state)}
              tooltip={problem.message}
              // The message names the file and what to do; Finder shows the file to fix or look at.
              onAction={() => void showInFinder(problem.file).catch(() => Clipboard.copy(problem.message))}
            />
          ))}
        </MenuBarExtra.Section>
      ) : null}
      {model?.companionDown ? (
        <MenuBarExtra.Section title="Companion Not Running">
          <MenuBarExtra.Item
            title="Start Companion"
            subtitle={model.interrupted > 0 ? `${model.interrupted} turn(s) interrupted` : undefined}
            icon={Icon.Play}
            // Starting takes seconds (a login shell, the service): Set Up Offrun's view does it and shows how it went,
            // since Raycast unloads this command when its menu closes.
            onAction={openCommand("set-up-offrun", START_COMPANION_CONTEXT)}
          />
          <MenuBarExtra.Item
            title="Copy Start Command"
            subtitle={START_COMPANION_COMMAND}
            icon={Icon.Clipboard}
            onAction={() => void Clipboard.copy(START_COMPANION_COMMAND)}
          />
        </MenuBarExtra.Section>
      ) : null}
      {model && model.needsYou.length > 0 ? (
        <MenuBarExtra.Section title="Needs You">
          {model.needsYou.map((agent) => {
            const key = `${agent.host ?? ""}:${agent.project}/${agent.name}`;
            const open = openCommand("agents", {
              project: agent.project,
              agent: agent.agent,
              ...(agent.host ? { host: agent.host } : {}),
            });
            const shown = menuText(agent.name, `${agent.projectName} · ${agent.waitingFor}`);
            const tooltip = `${agent.name} (${agent.projectName}) waits for: ${agent.waitingFor}`;
            // A question needs words: Agents, where the answer is typed. An approval is answered here.
            if (agent.kind !== "approval") {
              return <MenuBarExtra.Item key={key} icon={Icon.Bell} {...shown} tooltip={tooltip} onAction={open} />;
            }
            return (
              <MenuBarExtra.Submenu key={key} icon={Icon.Bell} title={shown.title}>
                {/* The command in full, one line (its control characters spelled out): what Approve allows. */}
                <MenuBarExtra.Item title={agent.waitingFor} tooltip={tooltip} />
                <MenuBarExtra.Item
                  title="Approve"
                  icon={Icon.Check}
                  onAction={() => void decide(agent, false).then(revalidate)}
                />
                <MenuBarExtra.Item
                  title="Deny"
                  icon={Icon.XMarkCircle}
                  onAction={() => void decide(agent, true).then(revalidate)}
                />
                <MenuBarExtra.Item title="Open in Agents" icon={Icon.List} onAction={open} />
              </MenuBarExtra.Submenu>
            );
          })}
        </MenuBarExtra.Section>
      ) : null}
      {/* Above the logins: with several CLIs they no longer push these below the fold. */}
      <MenuBarExtra.Section>
        <MenuBarExtra.Item title="Start Agent" icon={Icon.Plus} onAction={openCommand("start-agent")} />
        <MenuBarExtra.Item title="Agents" icon={Icon.List} onAction={openCommand("agents")} />
      </MenuBarExtra.Section>
      {(model?.harnesses ?? []).map((harness) => (
        <MenuBarExtra.Section key={harness.id} title={harness.name}>
          {harness.logins.map((login) => (
            <MenuBarExtra.Submenu
              key={login.label}
              title={shorten(login.title, LOGIN_ROW_CHARS)}
              icon={login.signedOut ? Icon.XMarkCircle : login.limited ? Icon.Hourglass : Icon.Person}
            >
              {login.notes.map((line) => (
                <MenuBarExtra.Item key={line} title={line} onAction={openCommand("agent-accounts")} />
              ))}
              {login.windows.length === 0 && login.notes.length === 0 ? (
                <MenuBarExtra.Item title="No Quota Reading Yet" />
              ) : null}
              {login.windows.map((line) => (
                <MenuBarExtra.Item key={line} title={line} onAction={openCommand("agent-accounts")} />
              ))}
            </MenuBarExtra.Submenu>
          ))}
        </MenuBarExtra.Section>
      ))}
      <MenuBarExtra.Section>
        <MenuBarExtra.Item
          title="Refresh"
          icon={Icon.ArrowClockwise}
          shortcut={Keyboard.Shortcut.Common.Refresh}
          onAction={revalidate}
        />
        <MenuBarExtra.Item title="Agent Logins" icon={Icon.Person} onAction={openCommand("agent-accounts")} />
        <MenuBarExtra.Item title="Preferences…" icon={Icon.Gear} onAction={() => void openExtensionPreferences()} />
      </MenuBarExtra.Section>
    </MenuBarExtra>
  );
}
