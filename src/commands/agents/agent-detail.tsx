import { Action, ActionPanel, Detail, Icon, List } from "@raycast/api";
import { useCachedPromise } from "@raycast/utils";
import { devServerUrl, filePreviewMarkdown, type PreviewFile } from "../../core/views/agent-detail.js";
import { readPreviewText } from "../../core/views/agent-detail-load.js";
import type { AgentRecord } from "../../core/foundation/model.js";

/** The diff with line numbers, full screen. */
export function DiffView({ record, markdown }: { record: AgentRecord; markdown: string }) {
  return (
    <Detail
      navigationTitle={`Diff of ${record.name}`}
      markdown={markdown}
      actions={
        <ActionPanel>
          <Action.CopyToClipboard title="Copy Branch" content={record.branch} />
        </ActionPanel>
      }
    />
  );
}

function FilePreview({ file }: { file: PreviewFile }) {
  const { data, isLoading } = useCachedPromise(readPreviewText, [file.absolute], {
    execute: file.kind !== "image" && file.kind !== "pdf" && file.status !== "deleted",
  });
  return <List.Item.Detail isLoading={isLoading} markdown={filePreviewMarkdown(file, data)} />;
}

/** The changed files of a worktree: markdown rendered, images inline, everything in Quick Look. */
export function ChangedFiles({ record, files }: { record: AgentRecord; files: PreviewFile[] }) {
  return (
    <List
      navigationTitle={`Changes of ${record.name}`}
      isShowingDetail={files.length > 0}
      searchBarPlaceholder="Filter changed files"
    >
      <List.EmptyView title="No Changes" description={`${record.name} has changed nothing since its base.`} />
      {files.map((file) => (
        <List.Item
          key={file.path}
          title={file.path}
          accessories={[{ text: file.stat }, { tag: file.status }]}
          quickLook={file.status === "deleted" ? undefined : { path: file.absolute, name: file.path }}
          detail={<FilePreview file={file} />}
          actions={
            <ActionPanel>
              {file.status === "deleted" ? null : <Action.ToggleQuickLook title="Quick Look" />}
              {file.status === "deleted" ? null : <Action.Open title="Open File" target={file.absolute} />}
              <Action.ShowInFinder path={file.status === "deleted" ? record.worktree : file.absolute} />
              <Action.OpenInBrowser title="Open Dev Server" url={devServerUrl(record)} icon={Icon.Globe} />
            </ActionPanel>
          }
        />
      ))}
    </List>
  );
}
