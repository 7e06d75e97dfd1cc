import path from "node:path";
import * as z from "zod";
import { agentEventSchema } from "../foundation/events.js";
import { quotaListRowSchema } from "../quota/row.js";
import { agentRecordSchema } from "../foundation/model.js";
import { lazyTable } from "../foundation/lazy-schemas.js";
import { agentNameProblem } from "../foundation/names.js";

/**
 * The requests that read what a companion holds, for a face that cannot read its files: the
 * local companion asking a remote one over SSH (core/remote). A local face still reads the files
 * directly, which is faster; these answer the same questions from the companion's side.
 */

/**
 * The protocol's version, exchanged by `hello`. Raise it when a request or reply changes in a way
 * an older peer would misread; a peer on another version is refused with what to update.
 */
export const PROTOCOL_VERSION = 1;

/** A name that is an agent's (no '/' or '..'): a peer's request never reaches another file. */
const agentName = () => z.string().refine((n) => agentNameProblem(n) === undefined, "expected an agent name");
const remotePath = () => z.string().refine((p) => path.isAbsolute(p), "expected an absolute path on the host");
/** A path inside a worktree, as a diff names it: relative, with no way up. */
const worktreePath = () =>
  z
    .string()
    .min(1)
    .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes(".."), "expected a path inside the worktree");

export const viewMethods = lazyTable({
  /** The first request on every remote connection: both sides say their protocol version. */
  hello: () => z.object({ protocol: z.number().int(), version: z.string() }),
  /** The agents of one project, or of every project this companion's user has run agents in. */
  "agents.list": () => z.object({ project: remotePath().optional() }),
  /** One agent's record, conversation and what it waits for (what `offrun show` prints). */
  "agent.show": () => z.object({ project: remotePath(), name: agentName() }),
  /** Changed files and the patch against the agent's base (what `offrun diff` prints). */
  "agent.diff": () => z.object({ project: remotePath(), name: agentName() }),
  /** One changed file's text, for a preview: only inside the agent's worktree, at most 256 KB. */
  "agent.file": () => z.object({ project: remotePath(), name: agentName(), path: worktreePath() }),
  /** The agent's draft (its message box: a review's fixes, text not sent yet). */
  "draft.read": () => z.object({ project: remotePath(), name: agentName() }),
  /** The complete lines of an agent's chat log from a byte offset: how a remote view catches up. */
  "chat.read": () =>
    z.object({
      project: remotePath(),
      name: agentName(),
      offset: z.number().int().nonnegative(),
      maxBytes: z
        .number()
        .int()
        .positive()
        .max(8 << 20)
        .default(1 << 20),
    }),
  /** Every login's quota and sign-in, as `offrun quota --json` prints it. */
  "quota.list": () => z.object({}).optional(),
  /** Answers when what the companion shows changed since `after` (change-beacon.ts), or after `timeoutMs`. */
  "changes.wait": () =>
    z.object({ after: z.string().optional(), timeoutMs: z.number().int().positive().max(60_000).default(25_000) }),
});

/**
 * A path a peer names (its project, an agent's worktree): shown, copied and pasted into a terminal
 * here, so without control characters (a newline in a copied path runs a line when pasted), as a
 * record's branch already is.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const shownPath = () => z.string().refine((p) => !CONTROL.test(p), "holds a control character");
/** An agent's record from a peer: its paths as `shownPath`. */
const peerRecordSchema = () => agentRecordSchema.extend({ project: shownPath(), worktree: shownPath() });

/** One agent as a listing shows it, with the size of its chat log (what a follower has to read). */
const listedAgentSchema = () => z.object({ record: peerRecordSchema(), chatBytes: z.number().int().nonnegative() });
export type ListedAgent = z.infer<ReturnType<typeof listedAgentSchema>>;

export const agentsListedSchema = z.lazy(() =>
  z.object({
    hostname: z.string(),
    projects: z.array(
      z.object({
        root: shownPath(),
        agents: z.array(listedAgentSchema()),
        unreadable: z.array(z.object({ file: z.string(), problem: z.string() })),
      }),
    ),
  }),
);
export type AgentsListed = z.infer<typeof agentsListedSchema>;

const agentShownSchema = () =>
  z.object({
    agent: peerRecordSchema(),
    pending: z.array(agentEventSchema),
    events: z.array(agentEventSchema),
    corruptLines: z.number().int().nonnegative(),
    setupLog: z.string().optional(),
  });
export type AgentShown = z.infer<ReturnType<typeof agentShownSchema>>;

export const viewReplies = lazyTable({
  hello: () => z.object({ protocol: z.number().int(), version: z.string(), hostname: z.string() }),
  "agents.list": () => agentsListedSchema,
  "agent.show": agentShownSchema,
  "agent.diff": () =>
    z.object({
      files: z.array(
        z.looseObject({ path: z.string(), status: z.string(), additions: z.number(), deletions: z.number() }),
      ),
      patch: z.string(),
      base: z.string(),
    }),
  "agent.file": () =>
    z.object({
      /** Undefined when the file is gone, not a regular file or too large (`size` says how large). */
      text: z.string().optional(),
      size: z.number().int().nonnegative(),
    }),
  "draft.read": () => z.object({ text: z.string().optional() }),
  "chat.read": () =>
    z.object({
      /** Complete lines only, each still JSON text: the reader validates them, as it does its own logs. */
      lines: z.array(z.string()),
      /** Where the next read starts (the end of the last complete line returned). */
      next: z.number().int().nonnegative(),
      /** The log's size now; smaller than the offset asked for means it was replaced. */
      size: z.number().int().nonnegative(),
    }),
  "quota.list": () => z.object({ logins: z.array(quotaListRowSchema()) }),
  /** The token to give as `after` next time. */
  "changes.wait": () => z.object({ token: z.string() }),
});

/** The local companion's requests about the hosts it is connected to (core/remote). */
export const hostMethods = lazyTable({
  /** One request sent on to a host's companion, as it is; the face parses the reply with that method's schema. */
  "host.call": () =>
    z.object({
      host: z.string().min(1),
      method: z.string().min(1),
      params: z.unknown(),
      timeoutMs: z
        .number()
        .int()
        .positive()
        .max(24 * 60 * 60_000)
        .optional(),
    }),
  /** Each host's connection: up or down, since when, why, the offrun version there. */
  "hosts.status": () => z.object({}).optional(),
  /** Every host's agents, each host time-boxed. */
  "hosts.agents": () => z.object({ timeoutMs: z.number().int().positive().max(60_000).optional() }),
  /** Every host's logins and quota, each host time-boxed. */
  "hosts.quota": () => z.object({ timeoutMs: z.number().int().positive().max(60_000).optional() }),
});

const linkStatusSchema = () =>
  z.object({
    name: z.string(),
    destination: z.string(),
    state: z.enum(["connecting", "connected", "down"]),
    since: z.string(),
    error: z.object({ kind: z.string(), message: z.string() }).optional(),
    remote: z.object({ version: z.string(), protocol: z.number(), hostname: z.string() }).optional(),
    sshPid: z.number().optional(),
    retryAt: z.string().optional(),
  });

const bytes = () => z.number().int().nonnegative();

/**
 * What this machine keeps of a host's chat logs against its budgets (companion/copy-budget.ts):
 * what its copies hold, what they may, and each agent's log not copied (further) because of them.
 */
export const hostCopiesSchema = z.lazy(() =>
  z.object({
    usedBytes: bytes(),
    copyBudgetBytes: bytes(),
    folderBudgetBytes: bytes(),
    refused: z.array(
      z.object({
        project: shownPath(),
        agent: agentName(),
        /** "copy": the log is over what one copy may hold; "folder": the rest of it would take the host's copies over theirs. */
        budget: z.enum(["copy", "folder"]),
        /** The log's size on the host, and how much of it is copied here. */
        logBytes: bytes(),
        copiedBytes: bytes(),
      }),
    ),
  }),
);
export type HostCopies = z.infer<typeof hostCopiesSchema>;

/** One host's part of a merged answer (remote/links.ts HostAnswer); `copies` in hosts.agents' only. */
const hostAnswer = <T extends z.ZodType>(value: T) =>
  z.discriminatedUnion("ok", [
    z.object({ host: z.string(), ok: z.literal(true), value, ms: z.number(), copies: hostCopiesSchema.optional() }),
    z.object({
      host: z.string(),
      ok: z.literal(false),
      error: z.object({ kind: z.string(), message: z.string() }),
      ms: z.number(),
      copies: hostCopiesSchema.optional(),
    }),
  ]);

export const hostReplies = lazyTable({
  "host.call": () => z.unknown(),
  "hosts.status": () => z.object({ hosts: z.array(linkStatusSchema()) }),
  "hosts.agents": () => z.object({ hosts: z.array(hostAnswer(agentsListedSchema)) }),
  "hosts.quota": () => z.object({ hosts: z.array(hostAnswer(viewReplies["quota.list"])) }),
});
