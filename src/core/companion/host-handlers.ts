import type { Handlers } from "../protocol/protocol.js";
import { viewReplies, type hostMethods } from "../protocol/protocol-views.js";
import { HOST_ANSWER_MS, type HostLinks } from "../remote/links.js";
import type { HostFollower } from "./follow.js";

/** The hosts' mirrors, once the companion follows them (run.ts starts that after recovery). */
export interface Following {
  current?: HostFollower;
}

/** The local companion's answers about its hosts (protocol-views.ts hostMethods). */
export function hostHandlers(
  hosts: HostLinks | undefined,
  following: Following = {},
): Handlers<keyof typeof hostMethods> {
  return {
    "host.call": async (p) => {
      if (!hosts) throw new Error("this companion keeps no host connections");
      const link = await hosts.get(p.host);
      // It may change the host: until the mirror has looked again, a listing asks the host.
      const ended = following.current?.forwarding(link);
      try {
        return checkedReply(p.host, p.method, await link.call(p.method, p.params ?? {}, p.timeoutMs));
      } finally {
        ended?.();
      }
    },
    "hosts.status": async () => ({ hosts: hosts?.status() ?? [] }),
    // A host the mirror knows current answers from memory: `offrun ls` waits for no round trip there.
    // With what this machine did not copy of each host's logs, over their budgets (copy-budget.ts).
    "hosts.agents": async (p) => {
      const answers = (await hosts?.agents(p.timeoutMs, (link) => following.current?.listing(link))) ?? [];
      return {
        hosts: await Promise.all(
          answers.map(async (answer) => {
            const copies = await following.current?.copies(answer.host);
            return copies ? { ...answer, copies } : answer;
          }),
        ),
      };
    },
    "hosts.quota": async (p) => {
      const timeoutMs = p.timeoutMs ?? HOST_ANSWER_MS;
      const answers = await hosts?.ask(
        async (link) => viewReplies["quota.list"].parse(await link.call("quota.list", {}, timeoutMs)),
        timeoutMs,
      );
      return { hosts: answers ?? [] };
    },
  };
}

/**
 * A host's answer to a view request, checked as the protocol says before any face gets it (a
 * record's paths without control characters, among the rest): a face copies and shows it.
 */
function checkedReply(host: string, method: string, answer: unknown): unknown {
  if (!Object.hasOwn(viewReplies, method)) return answer;
  const schema = (viewReplies as unknown as Record<string, { safeParse(value: unknown): SafeParse }>)[method]!;
  const checked = schema.safeParse(answer);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new Error(
    `${host} answered ${method} with what Offrun does not pass on: ${issue?.path.join(".") || "the reply"} ${issue?.message ?? "is not as the protocol says"}. Check that host's Offrun (offrun hosts doctor ${host}).`,
  );
}

type SafeParse =
  { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
