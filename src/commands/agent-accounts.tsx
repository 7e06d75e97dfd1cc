import { Action, ActionPanel, Alert, Color, Icon, List, Toast, confirmAlert, showToast, Keyboard } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { withCompanion } from "./lib/companion.js";
import { AddLoginForm, RenameLoginForm, signIn, type CliChoice } from "./logins/login-forms.js";
import type { Login } from "../core/foundation/login-model.js";
import { visible } from "../core/foundation/visible.js";
import { isOffrunError } from "../core/foundation/errors.js";
import { loadLoginsView, refreshSignIn, type HarnessLogins, type LoginRow } from "./presenters/logins-view.js";
import { titleCase } from "../core/foundation/format.js";
import { loadHostLogins, type HostHarnessLogins, type HostLogin } from "./presenters/host-logins.js";
import { signInCommand, type LoginQuotaView } from "../core/logins/login-quota.js";
import { FailureView, showFailure } from "./lib/failure.js";
import { HostProblemItem } from "./lib/host-problem.js";
import { faceEnv } from "./lib/preferences.js";

/** Agent Logins: logins per CLI, cached sign-in state and quota; add, sign in, remove, set default. */

const SIGN_IN_TITLES = { "signed-in": "Signed In", "signed-out": "Signed Out", unknown: "Unknown" } as const;

/**
 * A login row's one accessory beside the detail pane: signed out, limited, or the share used; the
 * whole quota line, the home and whether it is the default are in the detail's metadata.
 */
export function quotaAccessory(quota: LoginQuotaView, signIn: string): List.Item.Accessory[] {
  if (quota.signedOut) return [{ tag: { value: "Signed Out", color: Color.Red }, tooltip: `Sign in: ${signIn}` }];
  if (quota.limited) return [{ tag: { value: "Limited", color: Color.Yellow }, tooltip: quota.summary }];
  if (quota.usedPercent === undefined) return [];
  return [{ text: `${Math.round(quota.usedPercent)}%`, tooltip: quota.summary }];
}

/** The cached sign-in state at once; the CLI's own status check (which refreshes the cache) follows. */
function SignedIn({ row, group, isPreferred }: { row: LoginRow; group: HarnessLogins; isPreferred: boolean }) {
  const { data } = useCachedPromise(refreshSignIn, [row.account, faceEnv()], { onError: () => undefined });
  const signIn = data ?? row.signIn;
  return (
    <List.Item.Detail
      markdown={`## ${titleCase(row.account.label)}\n\n${row.account.home}`}
      metadata={
        <List.Item.Detail.Metadata>
          <List.Item.Detail.Metadata.Label title="Signed In" text={SIGN_IN_TITLES[signIn.state]} />
          <List.Item.Detail.Metadata.Label
            title="Default"
            text={isPreferred ? "Yes: Start Agent preselects it" : "No"}
          />
          {signIn.state === "signed-out" ? (
            <List.Item.Detail.Metadata.Label title="Sign In With" text={signInCommand(row.account)} />
          ) : null}
          {signIn.email ? <List.Item.Detail.Metadata.Label title="Email" text={signIn.email} /> : null}
          {signIn.detail ? <List.Item.Detail.Metadata.Label title="Plan" text={signIn.detail} /> : null}
          {signIn.note ? <List.Item.Detail.Metadata.Label title="Note" text={signIn.note} /> : null}
          <List.Item.Detail.Metadata.Label title="Quota" text={row.quota.summary} />
          {row.quota.pace ? <List.Item.Detail.Metadata.Label title="Pace" text={row.quota.pace} /> : null}
          <List.Item.Detail.Metadata.Label title="CLI" text={group.binary ?? `Not installed: ${group.installHint}`} />
        </List.Item.Detail.Metadata>
      }
    />
  );
}

async function setDefault(login: Login, on: boolean, reload: () => void) {
  try {
    await withCompanion((client) =>
      client.call("login.default", { harness: login.harness, label: on ? login.label : null }),
    );
    await showToast({
      style: Toast.Style.Success,
      title: on ? `${titleCase(login.label)} Is the Default` : "No Default Login",
      message: on ? "Start Agent preselects it" : "Start Agent preselects the login with the most headroom",
    });
    reload();
  } catch (error) {
    await showFailure(error, "Could Not Set the Default");
  }
}

function LoginItem({
  group,
  row,
  clis,
  reload,
}: {
  group: HarnessLogins;
  row: LoginRow;
  clis: CliChoice[];
  reload: () => void;
}) {
  const { account: login, quota } = row;
  const isPreferred = group.defaultLogin === login.label;
  // eslint-disable-next-line @raycast/prefer-title-case -- Apple capitalizes a phrasal verb's particle ("Sign In"); the rule's word list lowercases it (test/helpers/title-case.ts)
  const signInAction = <Action title="Sign In with Terminal" icon={Icon.Key} onAction={() => void signIn(login)} />;
  return (
    <List.Item
      // The default (Start Agent's preselection) is starred; the CLI's own home is the house.
      icon={
        isPreferred
          ? { source: Icon.Star, tintColor: Color.Blue, tooltip: "Default" }
          : login.isDefault
            ? Icon.House
            : Icon.Person
      }
      title={titleCase(login.label)}
      keywords={[group.name, login.label, login.home, ...(isPreferred ? ["default"] : [])]}
      accessories={quotaAccessory(quota, signInCommand(login))}
      detail={<SignedIn row={row} group={group} isPreferred={isPreferred} />}
      actions={
        <ActionPanel>
          {/* A login that cannot run (or may not) offers its sign-in first. */}
          {row.signIn.state === "signed-in" ? null : signInAction}
          <Action
            title={isPreferred ? "Stop Using as Default" : "Set as Default"}
            icon={Icon.Star}
            onAction={() => setDefault(login, !isPreferred, reload)}
          />
          {row.signIn.state === "signed-in" ? signInAction : null}
          {login.isDefault ? null : (
            <Action.Push
              title="Rename Login"
              icon={Icon.Pencil}
              shortcut={Keyboard.Shortcut.Common.Edit}
              target={<RenameLoginForm login={login} onRenamed={reload} />}
            />
          )}
          <Action.Push
            title="Add Login"
            icon={Icon.Plus}
            shortcut={Keyboard.Shortcut.Common.New}
            target={<AddLoginForm harness={login.harness} clis={clis} onAdded={reload} />}
          />
          <Action.ShowInFinder path={login.home} />
          <Action.CopyToClipboard title="Copy Home Path" content={login.home} />
          {login.isDefault ? null : (
            <Action
              title="Remove Login"
              icon={Icon.Trash}
              style={Action.Style.Destructive}
              shortcut={Keyboard.Shortcut.Common.Remove}
              onAction={async () => {
                const confirmed = await confirmAlert({
                  title: `Remove login ${login.label}?`,
                  message: `Offrun forgets it; its home (${login.home}) and sign-in stay on disk.`,
                  primaryAction: { title: "Remove", style: Alert.ActionStyle.Destructive },
                });
                if (!confirmed) return;
                // Through the companion: it forgets the login while none of its agents is in a turn.
                const remove = (force: boolean) =>
                  withCompanion((client) =>
                    client.call("login.remove", { harness: login.harness, label: login.label, purge: false, force }),
                  );
                try {
                  try {
                    await remove(false);
                  } catch (error) {
                    // Agents use it: said with what each choice does here, not with the terminal's flags.
                    if (!isOffrunError(error, "conflict")) throw error;
                    const anyway = await confirmAlert({
                      title: `Agents Use ${titleCase(login.label)}`,
                      message: `${firstSentence(error.message)} Move them first with Switch Login… in Agents, or remove it anyway: they then wait for a login until you switch them, and this login's home with their sessions stays on disk.`,
                      primaryAction: { title: "Remove Anyway", style: Alert.ActionStyle.Destructive },
                    });
                    if (!anyway) return;
                    await remove(true);
                  }
                  await showToast({ style: Toast.Style.Success, title: `Removed ${login.label}` });
                  reload();
                } catch (error) {
                  await showFailure(error, "Could Not Remove the Login");
                }
              }}
            />
          )}
        </ActionPanel>
      }
    />
  );
}

/** A login of another machine's CLI: read here, signed in there (over ssh). */
function HostLoginItem({ host, group, login }: { host: string; group: HostHarnessLogins; login: HostLogin }) {
  const { quota } = login;
  return (
    <List.Item
      icon={Icon.Person}
      title={titleCase(login.label)}
      keywords={[group.name, login.label, host, login.home]}
      accessories={quotaAccessory(quota, login.signInCommand)}
      detail={
        <List.Item.Detail
          markdown={visible(`## ${titleCase(login.label)} on ${host}\n\n${login.home}`)}
          metadata={
            <List.Item.Detail.Metadata>
              <List.Item.Detail.Metadata.Label title="Signed In" text={SIGN_IN_TITLES[login.signIn.state]} />
              <List.Item.Detail.Metadata.Label title="Sign In With" text={login.signInCommand} />
              {login.signIn.note ? <List.Item.Detail.Metadata.Label title="Note" text={login.signIn.note} /> : null}
              <List.Item.Detail.Metadata.Label title="Quota" text={quota.summary} />
              {quota.pace ? <List.Item.Detail.Metadata.Label title="Pace" text={quota.pace} /> : null}
            </List.Item.Detail.Metadata>
          }
        />
      }
      actions={
        <ActionPanel>
          {/* The sign-in runs on the host, in a terminal here through ssh. */}
          <Action.CopyToClipboard title="Copy Sign-In Command" icon={Icon.Key} content={login.signInCommand} />
          <Action.CopyToClipboard title="Copy Home Path" content={login.home} />
        </ActionPanel>
      }
    />
  );
}

export default function AgentLogins() {
  const { data, isLoading, error, revalidate } = useCachedPromise(() => loadLoginsView(faceEnv()), [], {
    keepPreviousData: true,
  });
  // Other machines' logins, from the companion that keeps the connections (core/remote).
  const hosts = useCachedPromise(() => loadHostLogins(), [], { keepPreviousData: true });
  const clis = (data ?? []).map((group) => ({ id: group.id, name: group.name }));
  return (
    <List isLoading={isLoading || hosts.isLoading} isShowingDetail searchBarPlaceholder="Filter logins">
      {error && !data ? <FailureView error={error} onRetry={revalidate} /> : null}
      {(data ?? []).map((group) => (
        <List.Section key={group.id} title={group.name} subtitle={group.binary ? undefined : "Not Installed"}>
          {group.logins.map((row) => (
            <LoginItem key={row.account.label} group={group} row={row} clis={clis} reload={revalidate} />
          ))}
        </List.Section>
      ))}
      {(hosts.data ?? []).map((answer) =>
        answer.ok ? (
          answer.harnesses.map((group) => (
            <List.Section key={`${answer.host}:${group.id}`} title={`${group.name} on ${answer.host}`}>
              {group.logins.map((login) => (
                <HostLoginItem key={login.label} host={answer.host} group={group} login={login} />
              ))}
            </List.Section>
          ))
        ) : (
          <List.Section key={answer.host} title={answer.host}>
            <HostProblemItem problem={answer} onRetry={() => hosts.revalidate()} />
          </List.Section>
        ),
      )}
    </List>
  );
}

/** "Login 'x' of Claude Code is used by agents a, b." from the core's longer message. */
function firstSentence(message: string): string {
  const end = message.indexOf(". ");
  return end === -1 ? message : message.slice(0, end + 1);
}
