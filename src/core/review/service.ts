import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { appendChat, readAgent } from "../records/records.js";
import { addToDraft } from "../records/draft.js";
import { diskFullAdvice, isDiskFull } from "../foundation/disk-full.js";
import { describeError, OffrunError } from "../foundation/errors.js";
import type { EventDraft, ReviewEvent } from "../foundation/events.js";
import { changedBetween, worktreeFingerprint } from "../git/fingerprint.js";
import { findRepoRoot } from "../git/repo.js";
import { LoginPicker } from "../logins/picker.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { projectPaths } from "../foundation/paths.js";
import { makePrivateDir } from "../foundation/private-files.js";
import { isAlive } from "../foundation/pids.js";
import { loadProjectConfig, repositoryTrusted } from "../foundation/project.js";
import { appendJsonLine } from "../foundation/store.js";
import { checkFindings, touchedLines } from "./findings.js";
import { fixRequest } from "./fixes.js";
import { extractReview, REVIEW_JSON_SCHEMA } from "./output.js";
import { buildReviewPrompt } from "./prompt.js";
import { chooseReviewer, type ReviewerChoice, type ReviewerWish } from "./reviewer.js";
import { runReviewer, type ReviewerRun } from "./runner.js";
import { localRunner, type ProcessRunner } from "../foundation/runner.js";
import { createScratch, readAuthorChanges, removeScratch, type AuthorChanges } from "../git/review-scratch.js";

export interface ReviewRequest extends ReviewerWish {
  project: string;
  name: string;
  /** Put a message built from the findings into the author's draft (never sent by itself). */
  requestFixes?: boolean;
}

export interface ReviewResult {
  review: ReviewEvent;
  /** The draft file, when --request-fixes added to it. */
  draft?: string;
  warnings: string[];
}

/** Agents under review right now (one companion per user): a second review of the same agent waits its turn. */
const underReview = new Set<string>();

export interface PreparedReview {
  reviewer: { harness: string; account: string; model?: string };
  warnings: string[];
  /** Runs the review to its end; never rejects for a reviewer that failed (that is a failed review). */
  run(): Promise<ReviewResult>;
}

/**
 * Checks the request and picks the reviewer (what a person must fix throws here, before anything
 * runs); `run` then reviews the agent's work since its base with that login, read-only, and
 * records the result in the agent's chat. A review that could not run is recorded as failed:
 * never as an approval.
 */
export async function prepareReview(
  request: ReviewRequest,
  env: NodeJS.ProcessEnv = process.env,
  signal: AbortSignal = new AbortController().signal,
  /** Where the reviewer's CLI runs (see foundation/runner.ts). */
  runner: ProcessRunner = localRunner,
): Promise<PreparedReview> {
  const root = await findRepoRoot(request.project);
  const record = await readAgent(root, request.name);
  checkReviewable(record);
  const config = await loadProjectConfig(root);
  const logins = new LoginPicker(env);
  const reviewer = await chooseReviewer(record, request, config, logins, env);
  const key = `${root}\u0000${record.name}`;
  if (underReview.has(key)) {
    throw new OffrunError("conflict", `${record.name} is being reviewed already. Wait for that review to finish.`);
  }
  const changes = await readAuthorChanges(record.worktree, record.base);
  if (changes.files.length === 0) {
    throw new OffrunError("invalid_input", `${record.name} has changed nothing since its base: nothing to review.`);
  }
  underReview.add(key);
  const warnings = reviewer.warning ? [reviewer.warning] : [];
  const run = async (): Promise<ReviewResult> => {
    try {
      const review = await runReview(root, record, changes, reviewer, { config, logins, signal, runner });
      const message = request.requestFixes ? fixRequest(review) : undefined;
      const draft = message ? await addToDraft(root, record.name, message) : undefined;
      return { review, ...(draft ? { draft } : {}), warnings };
    } finally {
      underReview.delete(key);
    }
  };
  return {
    reviewer: {
      harness: reviewer.harness.id,
      account: reviewer.login.label,
      ...(reviewer.model ? { model: reviewer.model } : {}),
    },
    warnings,
    run,
  };
}

/** prepareReview and run, in one call. */
export async function reviewAgent(
  request: ReviewRequest,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<ReviewResult> {
  return (await prepareReview(request, env, signal)).run();
}

/** What a review runs with, besides its subject: the project's config, the logins, its stop, where the CLI runs. */
interface RunWith {
  config: ProjectConfig;
  logins: LoginPicker;
  signal: AbortSignal;
  runner: ProcessRunner;
}

async function runReview(
  root: string,
  record: AgentRecord,
  changes: AuthorChanges,
  reviewer: ReviewerChoice,
  using: RunWith,
): Promise<ReviewEvent> {
  const id = `r${Date.now().toString(36)}`;
  const transcript = path.join(projectPaths(root).agents, "reviews", `${record.name}-${id}.jsonl`);
  const base: ReviewEvent = {
    type: "review",
    at: "",
    turn: record.turns,
    id,
    reviewer: {
      harness: reviewer.harness.id,
      account: reviewer.login.label,
      ...(reviewer.model ? { model: reviewer.model } : {}),
    },
    outcome: "failed",
    findings: [],
    scope: { base: record.base, commits: changes.commits.length, files: changes.files.length },
    blockedWrites: [],
    transcript,
  };
  let run: ReviewerRun | undefined;
  let failure: string | undefined;
  let scratch: string | undefined;
  let before: { head: string; tree: string } | undefined;
  try {
    before = await worktreeFingerprint(record.worktree);
    await makePrivateDir(path.dirname(transcript));
    scratch = await createScratch(root, record.base, id, changes.patch);
    run = await runInScratch(scratch, record, changes, reviewer, using, transcript);
  } catch (error) {
    const said = isDiskFull(error) ? await diskFullAdvice(root, error, "review again") : describeError(error);
    failure = `The review could not run: ${said}`;
  } finally {
    if (scratch) await removeScratch(root, scratch).catch(() => undefined);
  }
  const checkouts = [scratch, record.worktree].filter((d): d is string => d !== undefined);
  const review: ReviewEvent = { ...base, ...judge(run, failure, changes, checkouts) };
  const checked = before ? await compareAuthor(record.worktree, before) : undefined;
  if (checked) review.authorWorktree = checked;
  review.at = new Date().toISOString();
  await appendChat(root, record.name, review);
  return review;
}

function checkReviewable(record: AgentRecord): void {
  if (record.status === "done") {
    throw new OffrunError(
      "invalid_input",
      `${record.name} was discarded; its worktree is gone, so there is nothing to review.`,
    );
  }
  // The work would change under the reviewer, and the before/after check would blame it.
  if (record.status === "working" && record.pid !== undefined && isAlive(record.pid)) {
    throw new OffrunError(
      "invalid_input",
      `${record.name} is still working on a turn. Review it when the turn is over.`,
    );
  }
}

async function runInScratch(
  scratch: string,
  record: AgentRecord,
  changes: AuthorChanges,
  reviewer: ReviewerChoice,
  using: RunWith,
  transcript: string,
): Promise<ReviewerRun> {
  // Outside the scratch checkout, so the schema file is not part of what is reviewed.
  const schemaDir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-schema-"));
  const schemaFile = path.join(schemaDir, "review.schema.json");
  try {
    await fs.writeFile(schemaFile, JSON.stringify(REVIEW_JSON_SCHEMA));
    return await runReviewer({
      harness: reviewer.harness,
      binary: reviewer.binary,
      login: reviewer.login,
      ...(reviewer.model ? { model: reviewer.model } : {}),
      cwd: scratch,
      prompt: buildReviewPrompt(record, changes),
      outputSchema: { schema: REVIEW_JSON_SCHEMA, file: schemaFile },
      // A sandboxed agent's reviewer runs in the sandbox too, its scratch worktree read-only.
      ...(record.sandbox ? { sandbox: { project: record.project, name: `${record.name}-review` } } : {}),
      ...((await repositoryTrusted(record.project)) ? { workspaceTrusted: true } : {}),
      ...using,
      record: (login, event: EventDraft) =>
        appendJsonLine(transcript, { ...event, at: new Date().toISOString(), account: login.label }),
    });
  } finally {
    await fs.rm(schemaDir, { recursive: true, force: true });
  }
}

/** The review's outcome from the reviewer's run: validated, malformed (raw kept) or failed. */
function judge(
  run: ReviewerRun | undefined,
  failure: string | undefined,
  changes: AuthorChanges,
  checkouts: string[],
): Partial<ReviewEvent> {
  if (!run) return { outcome: "failed", reason: failure ?? "The review did not run." };
  const cost = {
    reviewer: { harness: run.login.harness, account: run.login.label },
    blockedWrites: run.denials,
    ...(run.tokens ? { tokens: run.tokens } : {}),
    quotaBefore: run.quotaBefore,
    quotaAfter: run.quotaAfter,
    ...(run.failedOver.length > 0 ? { failedOver: run.failedOver } : {}),
    ...(run.signedOut.length > 0 ? { signedOut: run.signedOut } : {}),
  };
  if (run.end.outcome !== "completed") {
    const reason = run.end.reason ?? `The reviewer's turn ended ${run.end.outcome}.`;
    return { ...cost, outcome: "failed", reason: `The review did not finish: ${reason}` };
  }
  const raw = run.finalText ?? "";
  const extracted = extractReview(raw);
  if (!extracted.ok) return { ...cost, outcome: "malformed", reason: extracted.problem, raw };
  const touched = touchedLines(changes.textPatch, changes.files);
  return {
    ...cost,
    outcome: "completed",
    verdict: extracted.review.verdict,
    summary: extracted.review.summary,
    findings: checkFindings(extracted.review.findings, touched, checkouts),
  };
}

/** Byte for byte: a content hash of every file (untracked included) and HEAD, before and after. */
async function compareAuthor(
  worktree: string,
  before: { head: string; tree: string },
): Promise<ReviewEvent["authorWorktree"]> {
  try {
    const after = await worktreeFingerprint(worktree);
    const changed = await changedBetween(worktree, before, after);
    return { unchanged: changed.length === 0, changed };
  } catch {
    return undefined;
  }
}
