import fs from "node:fs/promises";
import path from "node:path";
import { describeError } from "../foundation/errors.js";
import { loginsRoot, readLoginsStrictly } from "./logins-file.js";
import { leftPending, type PendingLoginChange } from "./pending.js";
import { carryRename } from "./rename.js";

/**
 * Login changes cut short by a crash or a full disk (pending.ts), finished or undone so that
 * accounts.json, the logins' homes and the agents' records agree again: a rename accounts.json has
 * is carried to the records, a removal it has deletes the home asked to be deleted, an add it never
 * got removes the empty home it made. Returns one line for the companion's log per change.
 */
export async function finishLoginChanges(env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const said: string[] = [];
  const left = await leftPending(env);
  if (left.length === 0) return said;
  // Strictly: a corrupt file read as empty would make every pending change look never made.
  const logins = (await readLoginsStrictly(env)).accounts;
  const listed = (harness: string, label: string) =>
    logins.find((entry) => entry.harness === harness && entry.label === label);
  for (const { file, change } of left) {
    try {
      if (change === undefined) said.push(`dropped ${file}: not a login change Offrun can read`);
      else said.push(await finish(change, listed, env));
      await fs.rm(file, { force: true });
    } catch (error) {
      said.push(`could not finish ${describe(change)} (${describeError(error)}); the next start tries again`);
    }
  }
  return said;
}

async function finish(
  change: PendingLoginChange,
  listed: (harness: string, label: string) => { home: string } | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const name = `login '${change.label}' of ${change.harness}`;
  switch (change.op) {
    case "rename": {
      if (!listed(change.harness, change.to))
        return `the rename of ${name} to '${change.to}' never reached accounts.json: nothing changed`;
      const agents = await carryRename(change.harness, change.label, change.to);
      return `finished renaming ${name} to '${change.to}'${agents.length > 0 ? `: its agents ${agents.join(", ")} follow` : ""}`;
    }
    case "add": {
      if (listed(change.harness, change.label)?.home === change.home) return `the add of ${name} was whole`;
      const removed = await fs.rmdir(change.home).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code === "ENOENT",
      );
      return removed
        ? `undid adding ${name}: accounts.json never got it, and the home it made is removed`
        : `undid adding ${name}: accounts.json never got it; its home ${change.home} is kept because it is not empty (delete it with \`rm -rf ${change.home}\` if you do not need it)`;
    }
    case "remove": {
      if (listed(change.harness, change.label)?.home === change.home)
        return `the removal of ${name} never reached accounts.json: nothing changed`;
      // Only inside Offrun's own folder of homes, as `logins rm --purge` itself.
      if (!path.resolve(change.home).startsWith(path.join(loginsRoot(env), change.harness) + path.sep)) {
        return `finished removing ${name}; its home ${change.home} is outside Offrun's folder, so it is kept`;
      }
      await fs.rm(change.home, { recursive: true, force: true });
      return `finished removing ${name}: its home ${change.home} is deleted, as --purge asked`;
    }
  }
}

function describe(change: PendingLoginChange | undefined): string {
  return change ? `the ${change.op} of login '${change.label}' of ${change.harness}` : "a login change";
}
