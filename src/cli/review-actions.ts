import { readAgent } from "../core/records/records.js";
import { draftFile, readDraft } from "../core/records/draft.js";
import { findRepoRoot } from "../core/git/repo.js";
import { output, print, projectDir, type GlobalOptions } from "./output.js";
import { withAgent, type HostOptions } from "./target.js";
import { renderReview } from "./review-format.js";

/** review (through the companion, which runs the reviewer) and draft (reads a file). */

export interface ReviewOptions extends HostOptions {
  harness?: string;
  login?: string;
  model?: string;
  force?: boolean;
  wait?: boolean;
  requestFixes?: boolean;
}

export async function review(name: string, options: ReviewOptions): Promise<void> {
  // --request-fixes needs the findings, so it waits for them.
  const wait = Boolean(options.wait || options.requestFixes);
  const answer = await withAgent(
    name,
    options,
    (target) =>
      target.caller.call("agent.review", {
        project: target.project,
        name: target.name,
        harness: options.harness,
        account: options.login,
        model: options.model,
        force: options.force,
        requestFixes: options.requestFixes,
        wait,
      }),
    wait ? 12 * 60 * 60_000 : undefined,
  );
  if (!("review" in answer)) {
    const started = answer;
    if (!options.json) for (const warning of started.warnings) print(process.stderr, `offrun: warning: ${warning}\n`);
    const who = `${started.reviewer.harness} · ${started.reviewer.account}`;
    output(options, started, () => `Reviewing ${name} with ${who}. The review appears in: offrun show ${name}`);
    return;
  }
  const finished = answer;
  const event = finished.review;
  if (!options.json) for (const warning of finished.warnings) print(process.stderr, `offrun: warning: ${warning}\n`);
  output(options, finished, () =>
    [
      renderReview(event).trimStart(),
      ...(finished.draft
        ? [``, `A message asking for fixes is in ${name}'s draft (${finished.draft}); nothing was sent.`]
        : []),
      ...(finished.draft
        ? [`  see it: offrun draft ${name}   send it: offrun send ${name} --prompt-file ${finished.draft}`]
        : []),
    ].join("\n"),
  );
  // A review that did not produce a verdict never passes for one in a script.
  if (event.outcome !== "completed") process.exitCode = 1;
}

export async function draft(name: string, options: GlobalOptions): Promise<void> {
  const root = await findRepoRoot(projectDir(options));
  await readAgent(root, name); // "no such agent" before "no draft"
  const text = await readDraft(root, name);
  const file = draftFile(root, name);
  output(options, { agent: name, file, text: text ?? null }, () => {
    if (text === undefined) return `${name} has no draft.`;
    return `${text.trimEnd()}\n\n(draft in ${file}; send it with: offrun send ${name} --prompt-file ${file})`;
  });
}
