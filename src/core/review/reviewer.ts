import { findHarness, listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { listLogins } from "../logins/store.js";
import { requireAgentBinary } from "../agents/binary.js";
import { locateBinary } from "../foundation/binaries.js";
import type { LoginPicker } from "../logins/picker.js";
import type { AgentRecord, ProjectConfig } from "../foundation/model.js";
import { loginKey, readLedgerEntry } from "../quota/ledger.js";

export interface ReviewerChoice {
  harness: Harness;
  binary: string;
  login: Login;
  model?: string;
  /** Said in the review when the reviewer is the author's own login (nothing else was available). */
  warning?: string;
}

export interface ReviewerWish {
  // `account` names the login: `agent.review`'s params (ReviewRequest) carry it under this key.
  harness?: string;
  account?: string;
  model?: string;
  force?: boolean;
}

/**
 * Who reviews: what the command names, else the project's `review` setting, else another
 * installed harness with a login Offrun has used, else another login of the author's
 * harness, else (with a warning) the author's own login.
 */
export async function chooseReviewer(
  record: AgentRecord,
  wish: ReviewerWish,
  config: ProjectConfig,
  logins: LoginPicker,
  env: NodeJS.ProcessEnv,
): Promise<ReviewerChoice> {
  const configured = config.review ?? {};
  const harnessId = wish.harness ?? (wish.account ? record.harness : configured.harness);
  const label = wish.account ?? (wish.harness === undefined ? configured.account : undefined);
  const model = wish.model ?? (wish.harness === undefined ? configured.model : undefined);
  const modelPart = model === undefined ? {} : { model };
  if (harnessId !== undefined) {
    const harness = await findHarness(harnessId, { project: record.project, env });
    const binary = await requireBinary(harness, env);
    if (label !== undefined) {
      const picked = await logins.choose(harness, { label, force: wish.force });
      return { harness, binary, login: picked.login, ...modelPart, ...ownLoginWarning(record, picked.login) };
    }
    return { harness, binary, ...modelPart, ...(await otherLoginFirst(record, harness, logins, wish.force)) };
  }
  for (const harness of await listHarnesses({ project: record.project, env, tolerant: true })) {
    if (harness.id === record.harness) continue;
    const binary = await locateBinary(harness.id, harness.binaryName, env);
    if (!binary || !(await hasUsedLogin(harness, env))) continue;
    const picked = await logins.choose(harness, {}).catch(() => undefined);
    if (picked) return { harness, binary, login: picked.login, ...modelPart };
  }
  const harness = await findHarness(record.harness, { project: record.project, env });
  const binary = await requireBinary(harness, env);
  return { harness, binary, ...modelPart, ...(await otherLoginFirst(record, harness, logins, wish.force)) };
}

/** Another login of the author's harness when there is one with room, else the author's own. */
async function otherLoginFirst(
  record: AgentRecord,
  harness: Harness,
  logins: LoginPicker,
  force: boolean | undefined,
): Promise<{ login: Login; warning?: string }> {
  if (harness.id === record.harness) {
    const author = new Set([loginKey({ harness: harness.id, label: record.account })]);
    const other = await logins.choose(harness, { exclude: author }).catch(() => undefined);
    if (other) return { login: other.login };
  }
  const picked = await logins.choose(harness, { force });
  return { login: picked.login, ...ownLoginWarning(record, picked.login) };
}

function ownLoginWarning(record: AgentRecord, login: Login): { warning?: string } {
  if (login.harness !== record.harness || login.label !== record.account) return {};
  return {
    warning: `The reviewer is the author's own login (${login.harness} · ${login.label}); add another login or set "review" in .offrun/config.json for a second opinion.`,
  };
}

/**
 * Some login of the harness has been used by Offrun (the quota ledger has a reading of it). A
 * home folder alone says little (Gemini CLI's is $HOME itself), and asking each CLI who is
 * signed in would cost seconds per harness.
 */
async function hasUsedLogin(harness: Harness, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const login of await listLogins(harness, env)) {
    const entry = await readLedgerEntry(login);
    if (entry.observed || entry.last?.source) return true;
  }
  return false;
}

function requireBinary(harness: Harness, env: NodeJS.ProcessEnv): Promise<string> {
  return requireAgentBinary(harness, env, {
    purpose: ", so it cannot review",
    then: ", or pick another reviewer with --harness",
  });
}
