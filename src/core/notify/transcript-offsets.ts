import path from "node:path";
import * as z from "zod";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { readJsonFile, writeJsonAtomic } from "../foundation/store.js";

const momentSchema = z.object({
  kind: z.enum(["finished", "needs-approval", "question", "limit"]),
  sessionId: z.string(),
  eventId: z.string().optional(),
  cwd: z.string().optional(),
  text: z.string(),
  at: z.string(),
});
/** A tool call still waiting when the companion stopped (harnesses/shared/pending-calls.ts WaitingCall). */
const waitingSchema = z.object({ id: z.string(), moment: momentSchema, dueAt: z.number() });
const offsetsSchema = z.object({
  version: z.literal(1),
  files: z.record(
    z.string(),
    z.object({
      offset: z.number().int().nonnegative(),
      ino: z.number().optional(),
      waiting: z.array(waitingSchema).optional(),
    }),
  ),
});
export type SavedOffset = z.infer<typeof offsetsSchema>["files"][string];

export function offsetsFile(): string {
  return path.join(userPaths().cache, "transcript-offsets.json");
}

/** The offsets a previous companion saved; empty when there are none or the cache is damaged (a cache is rebuilt, never a failure). */
export async function loadOffsets(file: string): Promise<Map<string, SavedOffset>> {
  const saved = await readJsonFile(file, offsetsSchema, "Delete it; Offrun starts the transcripts at their end.").catch(
    () => undefined,
  );
  return new Map(Object.entries(saved?.files ?? {}));
}

/**
 * Saves where each transcript was read up to, at most once per `delayMs` (a streamed answer
 * appends many lines a second), atomically, so a companion killed at any moment leaves either
 * the old file or the new one.
 */
export class OffsetSaver {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failing = false;

  constructor(
    private readonly file: string,
    private readonly snapshot: () => Record<string, SavedOffset>,
    private readonly delayMs: number,
    private readonly log: (line: string) => void,
  ) {}

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, this.delayMs);
  }

  /** Writes now (on close), after any write under way. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.write();
  }

  private write(): Promise<void> {
    this.writing = this.writing
      .then(() => writeJsonAtomic(this.file, { version: 1, files: this.snapshot() }, { fsync: false }))
      // A full disk is said in the log (once until a save works again); the next change tries again.
      .then(
        () => {
          if (this.failing) this.log("transcripts: offsets saved again");
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing) this.log(`transcripts: offsets not saved (${this.file}): ${describeError(error)}`);
          this.failing = true;
        },
      );
    return this.writing;
  }
}
