import { Action, ActionPanel, confirmAlert, Icon, Keyboard } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { visible } from "../../core/foundation/visible.js";
import { devServerUrl, type AgentDetailData } from "../presenters/agent-detail.js";
import type { AgentRow } from "../presenters/agents-overview.js";
import { hostHarnessChoices } from "../presenters/host-start.js";
import { loadAgentDetail } from "../presenters/agent-detail-load.js";
import { loadHostAgentDetail } from "../presenters/host-agents.js";
import { loadHarnessChoices } from "../presenters/start-options.js";
import { faceEnv, preferences } from "../lib/preferences.js";
import { startReview } from "../lib/review.js";
import { APPROVE_SHORTCUT, DENY_SHORTCUT, DIFF_SHORTCUT, STOP_SHORTCUT } from "../lib/shortcuts.js";
import { ChangedFiles, DiffView } from "./agent-detail.js";
import * as ops from "./companion-calls.js";
import { MessageForm } from "./message-form.js";

/**
 * The actions of one row of the Agents list. `detail` is the selected agent's loaded detail (pending
 * approvals, diff, changed files): Raycast shows only the selected row's actions, so the other rows
 * get none of it and never run git for it.
 */
export function AgentActions({
  row,
  detail,
  isSelected = true,
  reload,
}: {
  row: AgentRow;
  detail: AgentDetailData | undefined;
  /** Only the selected row's panel can be opened: only it reads the other logins and CLIs. */
  isSelected?: boolean;
  reload: () => void;
}) {
  const { record } = row;
  // The other logins and CLIs, of the machine the agent runs on.
  const others = useCachedPromise(
    async (host: string) =>
      host
        ? { harnesses: await hostHarnessChoices(host) }
        : { harnesses: await loadHarnessChoices({ project: record.project, env: faceEnv() }) },
    [row.host ?? ""],
    // Read with the selection, not when a submenu opens: a submenu that is empty once read is not shown.
    // Only the logins and CLIs, from files: no git, no project settings (Start Agent's whole options did both).
    { execute: isSelected },
  );
  const after = (done: Promise<unknown>) => void done.then(reload);
  const loadDetail = () =>
    row.host ? loadHostAgentDetail(row.host, record) : loadAgentDetail(record.project, record.name);
  const prefs = preferences();
  const first = detail?.pending[0];
  const requestId = first && "id" in first ? first.id : undefined;
  const harness = others.data?.harnesses.find((h) => h.id === record.harness);
  const logins = (harness?.logins ?? []).filter((login) => login.label !== record.account);
  const handOffs = (others.data?.harnesses ?? []).filter((h) => h.id !== record.harness && h.installed);
  const copyBranch = (
    <Action.CopyToClipboard title="Copy Branch" content={record.branch} shortcut={Keyboard.Shortcut.Common.Copy} />
  );
  return (
    <ActionPanel>
      <ActionPanel.Section>
        <Action.Push
          title="Send Message"
          icon={Icon.Envelope}
          target={
            <MessageForm
              record={record}
              title={`Message ${record.name}`}
              submitTitle="Send"
              host={row.host}
              withDraft
              onSend={(text) => ops.sendMessage(row, text)}
            />
          }
        />
        {/* Send Message stays first: ↵ must not become Answer when a question loads after the row was selected. */}
        {first?.type === "question" ? (
          <Action.Push
            title="Answer"
            icon={Icon.SpeechBubble}
            target={
              <MessageForm
                record={record}
                title={`Answer ${record.name}`}
                submitTitle="Send Answer"
                onSend={(text) => ops.answer(row, requestId, text)}
              />
            }
          />
        ) : null}
        {first?.type === "approval_request" ? (
          <>
            <Action
              title="Approve"
              icon={Icon.Check}
              shortcut={APPROVE_SHORTCUT}
              onAction={async () => {
                // The command is shown before it runs: the request may have arrived since the row was read.
                if (await confirmAlert({ title: `Approve for ${record.name}?`, message: wholeRequest(first) })) {
                  after(ops.approve(row, requestId, {}));
                }
              }}
            />
            <Action
              title="Deny"
              icon={Icon.XMarkCircle}
              shortcut={DENY_SHORTCUT}
              onAction={async () => {
                // A shortcut can be pressed on the wrong row: Deny names what it refuses too.
                if (await confirmAlert({ title: `Deny for ${record.name}?`, message: wholeRequest(first) })) {
                  after(ops.approve(row, requestId, { deny: true }));
                }
              }}
            />
            {first.alwaysKey ? (
              <Action
                title={`Always Allow ${visible(first.alwaysKey, "line")}`}
                icon={Icon.CheckCircle}
                onAction={() => after(ops.approve(row, requestId, { always: true }))}
              />
            ) : null}
          </>
        ) : null}
        <Action.Push
          title="Show Diff"
          icon={Icon.Document}
          shortcut={DIFF_SHORTCUT}
          target={<DiffView record={record} load={loadDetail} />}
        />
        <Action.Push
          title="Show Changed Files"
          icon={Icon.List}
          target={<ChangedFiles record={record} load={loadDetail} host={row.host} />}
        />
      </ActionPanel.Section>
      <ActionPanel.Section>
        <Action title="Review Changes" icon={Icon.MagnifyingGlass} onAction={() => after(startReview(row, false))} />
        <Action title="Review and Request Fixes" icon={Icon.Pencil} onAction={() => after(startReview(row, true))} />
        {others.isLoading || logins.length > 0 ? (
          <ActionPanel.Submenu title="Switch Login…" icon={Icon.Person} isLoading={others.isLoading}>
            {logins.map((login) => (
              <Action key={login.label} title={login.title} onAction={() => after(ops.switchLogin(row, login.label))} />
            ))}
          </ActionPanel.Submenu>
        ) : null}
        {others.isLoading || handOffs.length > 0 ? (
          // eslint-disable-next-line @raycast/prefer-title-case -- Apple capitalizes a phrasal verb's particle ("Hand Off"); the rule's word list lowercases it (test/helpers/title-case.ts)
          <ActionPanel.Submenu title="Hand Off to Another CLI…" icon={Icon.ArrowRight} isLoading={others.isLoading}>
            {handOffs.map((h) => (
              <Action key={h.id} title={h.name} onAction={() => after(ops.handOff(row, h.id))} />
            ))}
          </ActionPanel.Submenu>
        ) : null}
      </ActionPanel.Section>
      {row.host || row.ssh ? (
        // The worktree is on the host: reach it there, never with this Mac's apps on a path that
        // is the host's (a host row without its ssh entry gets no local action either).
        <ActionPanel.Section>
          {row.ssh ? (
            <Action.CopyToClipboard
              title="Copy SSH Command"
              content={row.ssh}
              icon={Icon.Terminal}
              shortcut={{ modifiers: ["cmd"], key: "t" }}
            />
          ) : null}
          <Action.CopyToClipboard title="Copy Worktree Path" content={record.worktree} />
          {copyBranch}
        </ActionPanel.Section>
      ) : (
        <ActionPanel.Section>
          <Action.Open
            title="Open in Editor"
            icon={Icon.Code}
            target={record.worktree}
            application={prefs.editor}
            shortcut={Keyboard.Shortcut.Common.Edit}
          />
          <Action.Open
            title="Open in Terminal"
            icon={Icon.Terminal}
            target={record.worktree}
            application={prefs.terminal ?? "Terminal"}
            shortcut={{ modifiers: ["cmd"], key: "t" }}
          />
          <Action.ShowInFinder path={record.worktree} />
          <Action.OpenInBrowser title="Open Dev Server" url={devServerUrl(record)} icon={Icon.Globe} />
          {copyBranch}
        </ActionPanel.Section>
      )}
      <ActionPanel.Section>
        <Action
          title="Merge"
          icon={Icon.Checkmark}
          shortcut={{ modifiers: ["cmd", "shift"], key: "m" }}
          onAction={() => after(ops.merge(row))}
        />
        {record.status === "working" || record.status === "needs-you" ? (
          <Action title="Stop" icon={Icon.Stop} shortcut={STOP_SHORTCUT} onAction={() => after(ops.stop(row))} />
        ) : null}
        <Action
          title="Discard"
          icon={Icon.Trash}
          style={Action.Style.Destructive}
          shortcut={Keyboard.Shortcut.Common.Remove}
          onAction={() => after(ops.discard(row))}
        />
        <Action
          title="Refresh"
          icon={Icon.ArrowClockwise}
          shortcut={Keyboard.Shortcut.Common.Refresh}
          onAction={reload}
        />
      </ActionPanel.Section>
    </ActionPanel>
  );
}

/** The waiting request whole, not the row's shortened text: what is approved or denied is the command itself. */
function wholeRequest(request: { tool: string; input?: unknown }): string {
  const input = request.input as { command?: unknown } | undefined;
  const whole = typeof input?.command === "string" ? input.command : JSON.stringify(request.input, null, 2);
  return visible(`${request.tool}: ${whole}`);
}
