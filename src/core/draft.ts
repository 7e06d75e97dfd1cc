import fs from "node:fs/promises";
import path from "node:path";
import { projectPaths } from "./paths.js";

/**
 * The author's message box: text waiting to be sent to an agent, never sent by itself. It lives
 * in `.offrun/agents/drafts/<agent>.md`, inside the folder Offrun already excludes from git.
 */
export function draftFile(root: string, agent: string): string {
  return path.join(projectPaths(root).agents, "drafts", `${agent}.md`);
}

/** The draft's text, or undefined when there is none. */
export async function readDraft(root: string, agent: string): Promise<string | undefined> {
  try {
    return await fs.readFile(draftFile(root, agent), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Adds text to the draft; what the user already wrote there stays first. */
export async function addToDraft(root: string, agent: string, text: string): Promise<string> {
  const file = draftFile(root, agent);
  const current = (await readDraft(root, agent)) ?? "";
  const next = current.trim() === "" ? text : `${current.replace(/\s*$/, "")}\n\n${text}`;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, next.endsWith("\n") ? next : `${next}\n`);
  return file;
}

export async function clearDraft(root: string, agent: string): Promise<void> {
  await fs.rm(draftFile(root, agent), { force: true });
}
