import fs from "node:fs/promises";
import path from "node:path";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir } from "../foundation/private-files.js";
import { withFileLock, writeTextAtomic } from "../foundation/store.js";

/**
 * The author's message box: text waiting to be sent to an agent, never sent by itself. It lives
 * in `.offrun/agents/drafts/<agent>.md`, inside the folder Offrun already excludes from git. The
 * companion writes it (a review's fixes, the box's text from Raycast), each write under the
 * draft's own lock: a review adding its fixes while the box is saved reads the draft and writes it
 * back in one step, so neither write lands in the middle of the other.
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
  await makePrivateDir(path.dirname(file));
  await withFileLock(file, async () => {
    const current = (await readDraft(root, agent)) ?? "";
    const next = current.trim() === "" ? text : `${current.replace(/\s*$/, "")}\n\n${text}`;
    await writeTextAtomic(file, next.endsWith("\n") ? next : `${next}\n`);
  });
  return file;
}

export async function clearDraft(root: string, agent: string): Promise<void> {
  const file = draftFile(root, agent);
  await withFileLock(file, () => fs.rm(file, { force: true }));
}

/** Replaces the draft with `text`; an empty text removes it (the user cleared the box). */
export async function writeDraft(root: string, agent: string, text: string): Promise<void> {
  if (text.trim() === "") return clearDraft(root, agent);
  const file = draftFile(root, agent);
  await makePrivateDir(path.dirname(file));
  // Whole or not at all: a full disk or a kill mid-write must not leave half of what the user typed.
  await withFileLock(file, () => writeTextAtomic(file, text.endsWith("\n") ? text : `${text}\n`));
}

export interface DraftKeeper {
  /** The box now holds `text`: written after a short pause in typing. */
  edit(text: string): void;
  /** Writes a waiting edit now (the box is closing); resolves when every write is done. */
  flush(): Promise<void>;
  /** The message went out: waiting edits are dropped and the draft is removed. */
  sent(): Promise<void>;
}

/**
 * Keeps a message box's text in the agent's draft while the user types, so that closing the box
 * without sending (Esc, or Raycast unloading the command, which may give no chance to save at
 * the end) loses nothing. Writes are debounced and run one after another, in order. `save` writes
 * the draft (an empty text removes it): a face passes the companion's `draft.write`.
 */
export function keepDraft(
  save: (text: string) => Promise<unknown>,
  options: { delayMs?: number; onError?: (error: unknown) => void } = {},
): DraftKeeper {
  let timer: NodeJS.Timeout | undefined;
  let waiting: string | undefined;
  let chain = Promise.resolve();
  const run = (step: () => Promise<unknown>) => {
    chain = chain
      .then(step)
      .then(() => undefined)
      .catch((error: unknown) => options.onError?.(error));
    return chain;
  };
  const stopTimer = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const flush = () => {
    stopTimer();
    if (waiting === undefined) return chain;
    const text = waiting;
    waiting = undefined;
    return run(() => save(text));
  };
  return {
    edit(text) {
      waiting = text;
      stopTimer();
      timer = setTimeout(() => void flush(), options.delayMs ?? 400);
    },
    flush,
    sent() {
      stopTimer();
      waiting = undefined;
      return run(() => save(""));
    },
  };
}
