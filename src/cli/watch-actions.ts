import { followChats, type TailedEvent } from "../core/notify/chat-tail.js";
import { findRepoRoot } from "../core/git/repo.js";
import { knownProjects } from "../core/foundation/project.js";
import { renderEvent } from "./format.js";
import { print, type GlobalOptions } from "./output.js";
import { visibleJson } from "../core/foundation/visible.js";
import { readHosts } from "../core/remote/hosts-file.js";
import { watchHostCopies } from "./watch-hosts.js";

/**
 * `offrun watch`: every new event of every agent, this machine's and the hosts' (without
 * --project), live, one line each (or raw JSON lines with --json), until Ctrl-C. Only what is
 * appended after it starts is shown: `offrun show` has the past.
 */
export async function watch(options: GlobalOptions): Promise<void> {
  const projects = options.project ? [await findRepoRoot(options.project)] : await knownProjects();
  const hosts = options.project ? [] : await readHosts();
  const several = projects.length + hosts.length > 1;
  const showEvent = ({ project, agent, host, event }: TailedEvent) => {
    if (options.json) {
      process.stdout.write(`${visibleJson({ ...(host ? { host } : {}), project, agent, event })}\n`);
      return;
    }
    const text = renderEvent(event);
    if (text === undefined) return;
    const name = host ? `${host}:${agent}` : agent;
    const who = several ? `${name} (${project})` : name;
    // renderEvent's blocks start with a blank line and may span lines: one line each, prefixed.
    print(process.stdout, `${who}: ${text.trim().replace(/\s*\n\s*/g, " ")}\n`);
  };
  const problem = (line: string) => print(process.stderr, `offrun watch: ${line}\n`);
  const follower = await followChats({ projects, onEvent: showEvent, onProblem: problem });
  if (hosts.length > 0) await watchHostCopies(follower, hosts, problem);
  await follower.ready;
  const onHosts = hosts.length > 0 ? ` and the agents of ${hosts.map((h) => h.name).join(", ")}` : "";
  if (!options.json) print(process.stderr, `Watching ${projects.length} project(s)${onHosts}; Ctrl-C to stop.\n`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await follower.close();
}
