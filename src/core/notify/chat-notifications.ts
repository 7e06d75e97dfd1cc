import { readAgent } from "../records/records.js";
import { describeError } from "../foundation/errors.js";
import { watchFile } from "../foundation/folder-watch.js";
import { userPaths } from "../foundation/paths.js";
import { knownProjects } from "../foundation/project.js";
import { followChats, type TailedEvent } from "./chat-tail.js";
import { classifyEvent } from "./classify.js";
import type { Notifier } from "./notifier.js";

export interface ChatNotifications {
  /** Resolves once every chat folder known at start is watched. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** An agent's events, in order, to notifications; `host` names the machine of a remote agent. */
export function chatEventNotifier(
  notifier: Notifier,
): (tailed: TailedEvent & { harness?: string; host?: string }) => Promise<void> {
  /** The last words and harness of each agent's current turn: the body of its "finished". */
  const lastText = new Map<string, { turn: number; text: string }>();
  const harnessOf = new Map<string, string>();
  return async ({ project, agent, event, harness: known, host }) => {
    const shownAs = host ? `${host}:${agent}` : undefined;
    const key = `${host ?? ""}\u0000${project}\u0000${agent}`;
    if (event.type === "turn_start") harnessOf.set(key, event.harness);
    if (event.type === "text") lastText.set(key, { turn: event.turn, text: event.text });
    const last = lastText.get(key);
    const words = last && last.turn === event.turn ? last.text : undefined;
    const harness =
      harnessOf.get(key) ??
      known ??
      (await readAgent(project, agent).then(
        (r) => r.harness,
        () => "agent",
      ));
    const notification = classifyEvent(
      event,
      { harness, name: shownAs ?? agent, project, ...(host ? { host } : {}) },
      words,
    );
    if (notification) await notifier.offer(notification);
  };
}

/**
 * The companion's notifications for the agents it runs: follows every known project's chat logs
 * and feeds each appended event to the classifier and the notifier. Reading the logs (not the
 * supervisor's memory) keeps the supervisor untouched and makes a turn of a restarted companion
 * count the same. Projects remembered later are picked up from projects.json.
 */
export async function notifyFromChats(options: {
  notifier: Notifier;
  log: (line: string) => void;
  projects?: string[];
}): Promise<ChatNotifications> {
  const onEvent = chatEventNotifier(options.notifier);

  const follower = await followChats({
    // A broken projects.json must not stop the companion: it is said in the log, and no project is followed.
    projects:
      options.projects ??
      (await knownProjects().catch((error: unknown) => {
        options.log(`notify: ${describeError(error)}`);
        return [];
      })),
    onEvent: (tailed) => void onEvent(tailed).catch((error: unknown) => options.log(`notify: ${describeError(error)}`)),
    onProblem: (problem) => options.log(`notify: ${problem}`),
  });

  // knownProjects() re-reads projects.json; addProject ignores folders already followed.
  const rescan = () =>
    void knownProjects()
      .then(async (roots) => {
        for (const root of roots) await follower.addProject(root);
      })
      .catch((error: unknown) => options.log(`notify: ${describeError(error)}`));
  const projectsFile = watchFile(userPaths().projects, rescan, { log: (line) => options.log(`notify: ${line}`) });

  return {
    ready: follower.ready,
    close: async () => {
      projectsFile?.close();
      await follower.close();
    },
  };
}
