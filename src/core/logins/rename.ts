import fs from "node:fs/promises";
import type { Login } from "../foundation/login-model.js";
import { renameLoginEntry } from "./store.js";
import { writeAgent } from "../records/records.js";
import { OffrunError } from "../foundation/errors.js";
import { renameLedgerEntry } from "../quota/ledger.js";
import { moveSignIn } from "./sign-in.js";
import { beginLoginChange, leftPending, refuseForRoom } from "./pending.js";
import { causeOf } from "../foundation/disk-full.js";
import { injectFault } from "../foundation/fault-points.js";
import { offrunHome } from "../foundation/paths.js";
import { findLogin } from "./lookup.js";
import { agentsOnLogin } from "./agents-on-login.js";

export { agentsOnLogin } from "./agents-on-login.js";

/**
 * Renames a login everywhere Offrun names it: accounts.json (and its default entry), then the
 * records of the agents on it in every known project, so their next turn still finds the login.
 * Refused while one of those agents is in a turn: the running turn rewrites its record with the
 * old name. The login's cached quota moves too: a limited login must stay limited under its new
 * name, not look fresh until the next observation.
 */
export async function renameLogin(request: {
  harness: string;
  label: string;
  to: string;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<{ account: Login; agents: string[] }> {
  const finished = await finishedRename(request);
  if (finished) return finished;
  // Read now, not before: in the companion this runs under the turn locks of these agents
  // (Supervisor.whileAllIdle), so the records are the ones the turns left.
  const onLogin = await agentsOnLogin(request.harness, request.label);
  const busy = onLogin.filter((r) => r.status === "working" || r.status === "needs-you");
  if (busy.length > 0) {
    throw new OffrunError(
      "invalid_input",
      `Login '${request.label}' has agents in a turn (${busy.map((r) => r.name).join(", ")}). Rename it once they are idle, or stop them first.`,
    );
  }
  const env = request.processEnv ?? process.env;
  const pending = await beginLoginChange(
    { op: "rename", harness: request.harness, label: request.label, to: request.to },
    env,
  ).catch(refuseForRoom(env, `Could not rename login '${request.label}'`));
  const login = await renameLoginEntry(request).catch(async (error: unknown) => {
    await pending.done();
    return refuseForRoom(env, `Could not rename login '${request.label}'`)(error);
  });
  try {
    injectFault("login", `rename ${request.harness}/${request.label}`);
    await carryRename(request.harness, request.label, login.label);
  } catch (error) {
    // accounts.json has the new name: going back would be a second rename on the same full disk.
    // It is finished instead, by the companion's next start or this same rename run again.
    pending.leave();
    throw new OffrunError(
      "process_failed",
      `Renamed login '${request.label}' to '${request.to}' in accounts.json, but its agents' records and quota could not follow: ${await causeOf(offrunHome(env), error)}. Until they do, its agents cannot start a turn: free space, then run \`offrun logins rename ${request.harness} ${request.label} ${request.to}\` again (the companion also finishes it when it starts).`,
      { cause: error },
    );
  }
  await pending.done();
  return { account: login, agents: onLogin.map((r) => r.name) };
}

/**
 * What follows a login's new name in accounts.json: the records of the agents on it, its cached
 * quota, its sign-in state. Each step finds what is left to move, so running it again finishes it.
 */
export async function carryRename(harness: string, from: string, to: string): Promise<string[]> {
  const now = new Date().toISOString();
  const onLogin = await agentsOnLogin(harness, from);
  for (const record of onLogin) await writeAgent({ ...record, account: to, updatedAt: now });
  await renameLedgerEntry(harness, from, to);
  await moveSignIn(harness, from, to);
  return onLogin.map((r) => r.name);
}

/**
 * The same rename run again after it was cut short (accounts.json has the new name, a pending
 * change says so): it is finished, and answered as the rename it was.
 */
async function finishedRename(request: {
  harness: string;
  label: string;
  to: string;
  processEnv?: NodeJS.ProcessEnv;
}): Promise<{ account: Login; agents: string[] } | undefined> {
  const env = request.processEnv ?? process.env;
  const same = (await leftPending(env)).filter(
    ({ change }) =>
      change?.op === "rename" &&
      change.harness === request.harness &&
      change.label === request.label &&
      change.to === request.to,
  );
  if (same.length === 0) return undefined;
  const login = await findLogin(request.harness, request.to, env).catch(() => undefined);
  if (!login) return undefined;
  const agents = await carryRename(request.harness, request.label, request.to);
  for (const { file } of same) await fs.rm(file, { force: true });
  return { account: login, agents };
}
