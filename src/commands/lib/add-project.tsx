import { Action, Form, Icon, Toast, showToast } from "@raycast/api";
import path from "node:path";
import { useState, type ReactNode } from "react";
import { rememberProject } from "../../core/foundation/project.js";
import { visible } from "../../core/foundation/visible.js";
import { checkProjectFolder, initRepository, type ProjectFolder } from "../../core/git/project-folder.js";
import { dirtyFiles } from "../../core/git/repo.js";
import { showFailure } from "./failure.js";

/**
 * Start Agent's Add Project…: a folder the user picks becomes a known project (projects.json), so
 * it is in the Project dropdown from then on. A folder that is no repository yet, or one without a
 * commit, says so and offers to make it one; the form goes on with it once it is.
 */

/** The Project dropdown's value for Add Project…: no path (they are absolute) and no `host:/path`. */
export const ADD_PROJECT = "+add-project";

type Unready = Exclude<ProjectFolder, { kind: "repository" }>;

export function useAddProject(onAdded: (root: string) => void): {
  /** The folder picker and, for a folder that is not ready, what is missing. */
  fields: ReactNode;
  /** Init Git Repository (or Make First Commit) while the picked folder needs it. */
  action: ReactNode;
} {
  const [folder, setFolder] = useState<string[]>([]);
  const [unready, setUnready] = useState<Unready>();

  const add = async (root: string, toast?: Toast) => {
    await rememberProject(root);
    setFolder([]);
    setUnready(undefined);
    onAdded(root);
    const title = `Added ${visible(path.basename(root), "line")}`;
    // An agent's worktree holds what the last commit holds: files never committed stay behind.
    const uncommitted = await dirtyFiles(root, { ignoreOffrun: true }).catch(() => []);
    const message =
      uncommitted.length > 0
        ? `${uncommitted.length} file(s) not committed: agents start from the last commit, so commit what they should see.`
        : visible(root, "line");
    if (!toast) {
      await showToast({ style: Toast.Style.Success, title, message });
      return;
    }
    toast.style = Toast.Style.Success;
    toast.title = title;
    toast.message = message;
  };

  const pick = async (paths: string[]) => {
    setFolder(paths);
    setUnready(undefined);
    const dir = paths[0];
    if (!dir) return;
    try {
      const state = await checkProjectFolder(dir);
      if (state.kind === "repository") await add(state.root);
      else setUnready(state);
    } catch (error) {
      await showFailure(error, "Cannot Add the Project");
    }
  };

  const init = async (state: Unready) => {
    const toast = await showToast({ style: Toast.Style.Animated, title: "Initializing Git Repository…" });
    try {
      await add(await initRepository(state.kind === "no-commits" ? state.root : state.dir), toast);
    } catch (error) {
      await toast.hide();
      await showFailure(error, "Could Not Initialize the Repository");
    }
  };

  const fields = (
    <>
      <Form.FilePicker
        id="folder"
        title="Project Folder"
        info="A git repository, or a folder to make one"
        canChooseDirectories
        canChooseFiles={false}
        allowMultipleSelection={false}
        value={folder}
        onChange={(paths) => void pick(paths)}
      />
      {unready?.kind === "not-a-repository" ? (
        <Form.Description
          title="Not a Git Repository"
          text={`${visible(unready.dir, "line")} is not in a git repository, and agents work in git worktrees. Init Git Repository (in the actions) runs git init there and makes an empty first commit.`}
        />
      ) : unready?.kind === "no-commits" ? (
        <Form.Description
          title="No Commits Yet"
          text={`${visible(unready.root, "line")} has no commit to branch agents from. Make First Commit (in the actions) makes an empty one.`}
        />
      ) : null}
    </>
  );
  const action = unready ? (
    <Action
      title={unready.kind === "no-commits" ? "Make First Commit" : "Init Git Repository"}
      icon={Icon.NewFolder}
      onAction={() => void init(unready)}
    />
  ) : null;
  return { fields, action };
}
