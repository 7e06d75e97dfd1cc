import { Action, ActionPanel, Detail, Icon, Keyboard, List } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import {
  devServerUrl,
  filePreviewMarkdown,
  type AgentDetailData,
  type PreviewFile,
} from "../presenters/agent-detail.js";
import { readPreviewText } from "../../core/foundation/inside.js";
import { readHostFile } from "../presenters/host-agents.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { usePoll } from "../lib/poll.js";

/**
 * The agent's diff and changed files, read when the screen opens (and read again, not taken
 * from the row, which may not have loaded yet: a blank page, or "No Changes" where there are),
 * then every 3 s while the agent works, as Agents polls, and on Refresh.
 */
function useDetail(record: AgentRecord, load: () => Promise<AgentDetailData>) {
  const detail = useCachedPromise(load, [], { keepPreviousData: false });
  usePoll(async () => detail.revalidate(), 3_000, record.status === "working");
  return detail;
}

function RefreshAction({ onRefresh }: { onRefresh: () => void }) {
  return (
    <Action
      title="Refresh"
      icon={Icon.ArrowClockwise}
      shortcut={Keyboard.Shortcut.Common.Refresh}
      onAction={onRefresh}
    />
  );
}

/** The diff with line numbers, full screen. */
export function DiffView({ record, load }: { record: AgentRecord; load: () => Promise<AgentDetailData> }) {
  const { data, isLoading, revalidate } = useDetail(record, load);
  return (
    <Detail
      navigationTitle={`Diff of ${record.name}`}
      isLoading={isLoading}
      markdown={data?.diffMarkdown ?? ""}
      actions={
        <ActionPanel>
          <Action.CopyToClipboard title="Copy Branch" content={record.branch} />
          <RefreshAction onRefresh={revalidate} />
        </ActionPanel>
      }
    />
  );
}

function FilePreview({ record, file, host }: { record: AgentRecord; file: PreviewFile; host?: string }) {
  const { data, isLoading } = useCachedPromise(
    (absolute: string) => (host ? readHostFile(host, record, file.path) : readPreviewText(absolute, record.worktree)),
    [file.absolute],
    { execute: file.kind !== "image" && file.kind !== "pdf" && file.kind !== "outside" && file.status !== "deleted" },
  );
  return (
    <List.Item.Detail
      isLoading={isLoading}
      markdown={filePreviewMarkdown(file, data, host)}
      metadata={
        <List.Item.Detail.Metadata>
          <List.Item.Detail.Metadata.Label title="Path" text={file.path} />
          <List.Item.Detail.Metadata.Label title="Change" text={`${file.status}, ${file.stat}`} />
        </List.Item.Detail.Metadata>
      }
    />
  );
}

/**
 * The changed files of a worktree: markdown rendered, images inline, everything in Quick Look. A
 * host's worktree (`host`) is read through its companion, text only: nothing there opens here.
 */
export function ChangedFiles(props: { record: AgentRecord; load: () => Promise<AgentDetailData>; host?: string }) {
  const { record, host } = props;
  const { data, isLoading, revalidate } = useDetail(record, props.load);
  const files = data?.files ?? [];
  return (
    <List
      navigationTitle={`Changes of ${host ? `${host}:` : ""}${record.name}`}
      isLoading={isLoading}
      isShowingDetail={files.length > 0}
      searchBarPlaceholder="Filter changed files"
    >
      {isLoading ? null : (
        <List.EmptyView
          title="No Changes"
          description={`${record.name} has changed nothing since its base.`}
          actions={
            <ActionPanel>
              <RefreshAction onRefresh={revalidate} />
            </ActionPanel>
          }
        />
      )}
      {files.map((file) => {
        // Deleted, or a link out of the worktree: nothing of it is opened here.
        const openable = file.status !== "deleted" && file.kind !== "outside";
        return (
          <List.Item
            key={file.path}
            title={file.path}
            // One accessory beside the detail pane, the status; the line counts are in the detail's metadata.
            accessories={[{ tag: file.status }]}
            quickLook={!openable || host ? undefined : { path: file.absolute, name: file.path }}
            detail={<FilePreview record={record} file={file} host={host} />}
            actions={
              host ? (
                <ActionPanel>
                  <Action.CopyToClipboard title="Copy Path" content={file.absolute} />
                  <RefreshAction onRefresh={revalidate} />
                </ActionPanel>
              ) : (
                <ActionPanel>
                  {openable ? <Action.ToggleQuickLook title="Quick Look" /> : null}
                  {openable ? <Action.Open title="Open File" target={file.absolute} /> : null}
                  <Action.ShowInFinder path={openable ? file.absolute : record.worktree} />
                  <Action.OpenInBrowser title="Open Dev Server" url={devServerUrl(record)} icon={Icon.Globe} />
                  <RefreshAction onRefresh={revalidate} />
                </ActionPanel>
              )
            }
          />
        );
      })}
    </List>
  );
}
