/**
 * The logins of each harness: the Default one (the CLI's own home) and those added in
 * `~/.offrun/accounts.json`, each with a home of its own. The file holds labels, homes and extra
 * environment, never a secret: signing in is the CLI's own business, inside that home.
 *
 * One idea per file: accounts-file.ts (accounts.json), account-lookup.ts (listing, finding),
 * account-changes.ts (add, remove, rename, defaults), account-env.ts (what a login's processes get).
 */
export { accountsRoot, defaultAccounts } from "./accounts-file.js";
export { defaultAccount, findAccount, listAccounts } from "./lookup.js";
export {
  addAccount,
  checkLabel,
  removeAccount,
  renameAccount,
  setDefaultAccount,
  setReserve,
  type AddAccountRequest,
  type RemoveAccountResult,
} from "./changes.js";
export { accountProcessEnv, ensureAccountHome, loginCommand } from "./env.js";
