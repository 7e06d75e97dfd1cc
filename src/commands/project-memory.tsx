import { Action, ActionPanel, Alert, Icon, Keyboard, List, Toast, confirmAlert, showToast } from "@raycast/api";
import { useCachedPromise, useCachedState } from "@raycast/utils";
import { knownProjects } from "../core/foundation/project.js";
import { visible } from "../core/foundation/visible.js";
import { loadMemoryView, memoryChangeMarkdown } from "./presenters/memory-view.js";
import { withCompanion } from "./lib/companion.js";
import { FailureView, showFailure } from "./lib/failure.js";
import { preferences } from "./lib/preferences.js";
import { inertMarkdown } from "./presenters/inert-markdown.js";

/** Project Memory: the files every agent reads and keeps, rendered, and the changes to undo. */
export default function ProjectMemory() {
  const projects = useCachedPromise(knownProjects, []);
  const [chosen, setChosen] = useCachedState<string>("project-memory:project", "");
  const project = chosen && projects.data?.includes(chosen) ? chosen : projects.data?.[0];
  const view = useCachedPromise(loadMemoryView, [project ?? ""], {
    execute: project !== undefined,
    keepPreviousData: true,
  });
  const editor = preferences().editor;
  const error = projects.error ?? view.error;
  return (
    <List
      isLoading={projects.isLoading || view.isLoading}
      isShowingDetail
      searchBarPlaceholder="Filter memory files and changes"
      searchBarAccessory={
        <List.Dropdown tooltip="Project" value={project ?? ""} onChange={setChosen}>
          {(projects.data ?? []).map((root) => (
            <List.Dropdown.Item key={root} value={root} title={root.split("/").at(-1) ?? root} />
          ))}
        </List.Dropdown>
      }
    >
      {error ? (
        <FailureView error={error} onRetry={view.revalidate} />
      ) : projects.isLoading || view.isLoading ? null : (
        <List.EmptyView
          icon={Icon.Book}
          title="No Projects Yet"
          description="Memory appears once an agent has run in a project."
        />
      )}
      <List.Section title="Memory Files">
        {(view.data?.files ?? []).map((row) => (
          <List.Item
            key={row.file}
            icon={row.agent ? Icon.Document : Icon.Book}
            title={row.title}
            detail={
              <List.Item.Detail
                markdown={inertMarkdown(
                  visible(row.text ?? "*Not written yet. Agents create it at their first turn.*"),
                )}
              />
            }
            actions={
              <ActionPanel>
                <Action.Open title="Edit" icon={Icon.Pencil} target={row.file} application={editor} />
                <Action.ShowInFinder path={row.file} />
                <Action.CopyToClipboard title="Copy Path" content={row.file} />
              </ActionPanel>
            }
          />
        ))}
      </List.Section>
      <List.Section title="Recent Changes">
        {(view.data?.changes ?? []).map((entry) => (
          <List.Item
            key={`${entry.agent}/${entry.event.id}`}
            icon={Icon.Clock}
            // Named as in Memory Files: beside the detail pane a row has room for about 24 characters.
            title={entry.event.file.replace(/^\.offrun\/memory\//, "")}
            keywords={[entry.agent, entry.event.file]}
            accessories={[{ date: new Date(entry.event.at) }]}
            detail={<List.Item.Detail markdown={memoryChangeMarkdown(entry)} />}
            actions={
              <ActionPanel>
                <Action
                  title="Revert This Change"
                  icon={Icon.Undo}
                  style={Action.Style.Destructive}
                  shortcut={Keyboard.Shortcut.Common.Remove}
                  onAction={async () => {
                    if (!project) return;
                    const confirmed = await confirmAlert({
                      title: "Revert this memory change?",
                      message: `${entry.event.file} goes back to what it was before; later edits on other lines stay.`,
                      primaryAction: { title: "Revert", style: Alert.ActionStyle.Destructive },
                    });
                    if (!confirmed) return;
                    try {
                      // Through the companion: it reverts once no turn that writes the file runs.
                      const result = await withCompanion((client) =>
                        client.call("memory.revert", { project, agent: entry.agent, id: entry.event.id }),
                      );
                      await showToast({
                        style: Toast.Style.Success,
                        title: result.outcome === "reverted" ? "Reverted" : "Already As Before",
                        message: result.file,
                      });
                      view.revalidate();
                    } catch (failure) {
                      await showFailure(failure, "Could Not Revert");
                    }
                  }}
                />
              </ActionPanel>
            }
          />
        ))}
      </List.Section>
    </List>
  );
}
