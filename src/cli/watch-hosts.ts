import path from "node:path";
import type { ChatFollower, ChatOwner } from "../core/notify/chat-tail.js";
import { describeError } from "../core/foundation/errors.js";
import type { Host } from "../core/remote/hosts-file.js";
import { copiedAgent, hostDir, projectTag } from "../core/companion/mirror.js";
import { withCompanion } from "./context.js";

/** A copy of a project not known yet asks the hosts again, at most this often. */
const ASK_AGAIN_MS = 5_000;

/**
 * `offrun watch` on other machines' agents: the companion copies each host's chat logs here as
 * they grow (companion/mirror.ts), so watching those copies shows a host's events as they arrive.
 * A copy's name has its project only as a tag: the hosts are asked which projects they have.
 */
export async function watchHostCopies(
  follower: ChatFollower,
  hosts: Host[],
  problem: (line: string) => void,
): Promise<void> {
  const projects = new Map<string, Map<string, string>>(hosts.map((h) => [h.name, new Map()]));
  let askedAt = 0;
  const ask = async () => {
    askedAt = Date.now();
    try {
      const answer = await withCompanion((client) => client.call("hosts.agents", {}));
      for (const h of answer.hosts) {
        if (!h.ok) {
          problem(`${h.host} did not answer (${h.error.message}); its agents show once it does`);
          continue;
        }
        const tags = projects.get(h.host);
        for (const p of h.value.projects) tags?.set(projectTag(p.root), p.root);
      }
    } catch (error) {
      problem(`the hosts' agents are not followed: ${describeError(error)}`);
    }
  };
  await ask();
  for (const host of hosts) {
    const ownerOf = (file: string): ChatOwner | undefined => {
      const copied = copiedAgent(file);
      if (!copied) return undefined;
      const project = projects.get(host.name)?.get(copied.tag);
      if (project) return { host: host.name, project, agent: copied.agent };
      // A project started there since: learned at the next ask, and this copy read from where it was.
      if (Date.now() - askedAt > ASK_AGAIN_MS) void ask();
      return undefined;
    };
    await follower.addFolder(path.join(hostDir(host.name), "chats"), ownerOf);
  }
}
