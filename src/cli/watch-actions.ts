import { followChats, type TailedEvent } from "../core/notify/chat-tail.js";
import { findRepoRoot } from "../core/git/repo.js";
import { knownProjects } from "../core/foundation/project.js";
import { renderEvent } from "./format.js";
import type { GlobalOptions } from "./output.js";

/**
 * `offrun watch`: every new event of every agent, live, one line each (or raw JSON lines with
 * --json), until Ctrl-C. Only what is appended after it starts is shown: `offrun show` has the past.
 */
export async function watch(options: GlobalOptions): Promise<void> {
  const projects = options.project ? [await findRepoRoot(options.project)] : await knownProjects();
  const several = projects.length > 1;
  const print = ({ project, agent, event }: TailedEvent) => {
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ project, agent, event })}\n`);
      return;
    }
    const text = renderEvent(event);
    if (text === undefined) return;
    const who = several ? `${agent} (${project})` : agent;
    // renderEvent's blocks start with a blank line and may span lines: one line each, prefixed.
    process.stdout.write(`${who}: ${text.trim().replace(/\s*\n\s*/g, " ")}\n`);
  };
  const follower = await followChats({
    projects,
    onEvent: print,
    onProblem: (problem) => process.stderr.write(`offrun watch: ${problem}\n`),
  });
  await follower.ready;
  if (!options.json) process.stderr.write(`Watching ${projects.length} project(s); Ctrl-C to stop.\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await follower.close();
}
