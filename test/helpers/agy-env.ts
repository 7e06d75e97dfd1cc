import fs from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "./offrun.js";

/** The fake `agy` (test/fake-agy/agy.mjs): agy does not install here, so every agy test runs it. */
export const FAKE_AGY = path.join(PROJECT_ROOT, "test", "fake-agy", "agy.mjs");

/** One scripted call of the fake: which fixture it replays and what it fills in. */
export interface AgyTurn {
  scenario: "text" | "write-file" | "denied" | "quota-retrying";
  text?: string;
  /** text: how long the model takes before its first words. */
  thinkSeconds?: number;
  /** write-file: the file the write_to_file step writes, and what. */
  path?: string;
  content?: string;
  /** denied: the command agy refuses. */
  command?: string;
  /** quota-retrying: the reset agy reports, and how long it retries before giving up (else its --print-timeout). */
  resetsIn?: string;
  retrySeconds?: number;
}

export interface AgyScript {
  file: string;
  /** Every call the fake got, in order: argv, stdin, HOME, the history it resumed. */
  calls(): Promise<
    { argv: string[]; home: string; stdin?: string; history?: string[]; probe?: boolean; call?: string }[]
  >;
  /** Replaces the turns still to come (an exhausted login stays exhausted until this). */
  set(turns: AgyTurn[]): Promise<void>;
}

/** A script file for the fake; pass `file` as FAKE_AGY_SCRIPT (a login's --env, or the test's env). */
export async function agyScript(
  file: string,
  opts: { version?: string; signedIn?: boolean; turns?: AgyTurn[] } = {},
): Promise<AgyScript> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const write = (turns: AgyTurn[]) =>
    fs.writeFile(file, JSON.stringify({ version: opts.version ?? "1.2.3", signedIn: opts.signedIn ?? true, turns }));
  await write(opts.turns ?? []);
  return {
    file,
    async calls() {
      const text = await fs.readFile(`${file}.calls.jsonl`, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Awaited<ReturnType<AgyScript["calls"]>>[number]);
    },
    async set(turns) {
      await fs.rm(`${file}.state`, { force: true });
      await write(turns);
    },
  };
}
