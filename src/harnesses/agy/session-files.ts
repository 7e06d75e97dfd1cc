import fs from "node:fs/promises";
import path from "node:path";
import { OffrunError } from "../../core/foundation/errors.js";

/**
 * agy keeps its state under `<HOME>/.gemini/antigravity-cli/`. Since 1.0.4 a conversation is one
 * SQLite database, `conversations/<id>.db`, in WAL mode (`<id>.db-wal` and `<id>.db-shm` beside
 * it), and the id is what `--conversation` resumes; `brain/<id>/` holds the conversation's
 * artifacts and transcript. Earlier builds wrote `conversations/<id>.pb`.
 */
export function agyStateDir(home: string): string {
  return path.join(home, ".gemini", "antigravity-cli");
}

export function agySessionRoots(home: string): string[] {
  return [path.join(agyStateDir(home), "conversations")];
}

const exists = (file: string) =>
  fs.stat(file).then(
    () => true,
    () => false,
  );

/**
 * Makes conversation `sessionId` of one login resumable from another: the database and its
 * write-ahead log (the log holds the turns not yet checkpointed into the database: leaving it
 * behind loses them), and the brain folder when there is one. The `-shm` file is an index of the
 * log that SQLite rebuilds when the first connection opens the database; a stale copy of it
 * could describe another log, so it is not copied and an old one at the destination is removed.
 * Runs after the old process has exited, so the database is not being written.
 */
export async function copyAgySession(request: { fromHome: string; toHome: string; sessionId: string }): Promise<void> {
  const { sessionId } = request;
  if (!/^[A-Za-z0-9._-]+$/.test(sessionId) || sessionId.startsWith(".")) {
    throw new OffrunError("invalid_input", `'${sessionId}' is not an agy conversation id.`);
  }
  const from = agyStateDir(request.fromHome);
  const to = agyStateDir(request.toHome);
  const db = path.join("conversations", `${sessionId}.db`);
  if (!(await exists(path.join(from, db)))) {
    throw new OffrunError(
      "not_found",
      `agy conversation ${sessionId} is not in ${path.join(from, "conversations")}: there is nothing to resume from the other login.`,
    );
  }
  await fs.mkdir(path.join(to, "conversations"), { recursive: true, mode: 0o700 });
  await fs.rm(path.join(to, `${db}-shm`), { force: true });
  await fs.copyFile(path.join(from, db), path.join(to, db));
  if (await exists(path.join(from, `${db}-wal`))) {
    await fs.copyFile(path.join(from, `${db}-wal`), path.join(to, `${db}-wal`));
  } else {
    await fs.rm(path.join(to, `${db}-wal`), { force: true });
  }
  const brain = path.join(from, "brain", sessionId);
  if (await exists(brain)) {
    await fs.cp(brain, path.join(to, "brain", sessionId), { recursive: true, force: true });
  }
}
