import { Color, Icon, LaunchType, MenuBarExtra, launchCommand, showHUD } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { isAlive } from "../core/foundation/pids.js";
import { readSnapshot } from "../core/companion/snapshot.js";
import { buildMenuBar } from "../core/views/menu-bar.js";
import { listHarnesses } from "../harnesses/registry.js";
import { withCompanion } from "./lib/companion.js";
import { describeError } from "./lib/failure.js";

/**
 * Agent Quota (menu bar, every minute): paints from the companion's snapshot, and starts the
 * companion when it is down. isLoading stays true until both are done, then Raycast unloads it.
 */

async function loadMenu() {
  const [snapshot, harnesses] = await Promise.all([readSnapshot(), listHarnesses({ tolerant: true })]);
  let alive = snapshot !== undefined && isAlive(snapshot.companion.pid);
  let startError: string | undefined;
  if (!alive) {
    // Down (or never run): start it, so notifications and quota keep coming while Raycast is closed.
    await withCompanion((client) => client.ping()).then(
      () => (alive = true),
      (error: unknown) => (startError = describeError(error)),
    );
  }
  return {
    model: buildMenuBar(snapshot ?? (await readSnapshot()), {
      now: Date.now(),
      harnessNames: new Map(harnesses.map((h) => [h.id, h.displayName])),
      companionAlive: alive,
    }),
    startError,
  };
}

/** Opens another command; `context` reaches it as its launch context (Agents selects that agent). */
const openCommand = (name: string, context?: { project: string; agent: string }) => () =>
  void launchCommand({ name, type: LaunchType.UserInitiated, ...(context ? { context } : {}) }).catch(() =>
    showHUD(`Could not open ${name}`),
  );

export default function AgentQuota() {
  const { data, isLoading } = useCachedPromise(loadMenu, [], { keepPreviousData: true });
  const model = data?.model;
  const icon =
    model?.state === "needs-you"
      ? { source: Icon.Bell, tintColor: Color.Orange }
      : model?.state === "limited"
        ? { source: Icon.Hourglass, tintColor: Color.Yellow }
        : Icon.Gauge;
  return (
    <MenuBarExtra isLoading={isLoading} icon={icon} title={model?.title} tooltip={model?.tooltip ?? "Offrun"}>
      {data?.startError ? (
        <MenuBarExtra.Item
          title="Companion Not Running"
          subtitle={data.startError}
          icon={Icon.ExclamationMark}
          onAction={openCommand("agents")}
        />
      ) : null}
      {model && model.needsYou.length > 0 ? (
        <MenuBarExtra.Section title="Needs You">
          {model.needsYou.map((agent) => (
            <MenuBarExtra.Item
              key={`${agent.project}/${agent.name}`}
              icon={Icon.Bell}
              title={agent.name}
              subtitle={`${agent.projectName} · ${agent.waitingFor}`}
              tooltip={agent.waitingFor}
              onAction={openCommand("agents", { project: agent.project, agent: agent.name })}
            />
          ))}
        </MenuBarExtra.Section>
      ) : null}
      {(model?.harnesses ?? []).map((harness) => (
        <MenuBarExtra.Section key={harness.id} title={harness.name}>
          {harness.logins.map((login) => (
            <MenuBarExtra.Submenu
              key={login.label}
              title={login.title}
              icon={login.signedOut ? Icon.XMarkCircle : login.limited ? Icon.Hourglass : Icon.Person}
            >
              {login.notes.map((line) => (
                <MenuBarExtra.Item key={line} title={line} onAction={openCommand("agent-accounts")} />
              ))}
              {login.windows.length === 0 && login.notes.length === 0 ? (
                <MenuBarExtra.Item title="No quota reading yet" />
              ) : null}
              {login.windows.map((line) => (
                <MenuBarExtra.Item key={line} title={line} onAction={openCommand("agent-accounts")} />
              ))}
            </MenuBarExtra.Submenu>
          ))}
        </MenuBarExtra.Section>
      ))}
      <MenuBarExtra.Section>
        <MenuBarExtra.Item title="Agents" icon={Icon.List} onAction={openCommand("agents")} />
        <MenuBarExtra.Item title="Start Agent" icon={Icon.Plus} onAction={openCommand("start-agent")} />
        <MenuBarExtra.Item title="Agent Accounts" icon={Icon.Person} onAction={openCommand("agent-accounts")} />
      </MenuBarExtra.Section>
    </MenuBarExtra>
  );
}
