/**
 * The logins of each harness: the Default one (the CLI's own home) and those added in
 * `~/.offrun/accounts.json`, each with a home of its own. The file holds labels, homes and extra
 * environment, never a secret: signing in is the CLI's own business, inside that home.
 *
 * One idea per file: logins-file.ts (accounts.json), lookup.ts (listing, finding), changes.ts
 * (add, remove, rename, defaults), env.ts (what a login's processes get).
 */
export { loginsRoot, defaultLogins } from "./logins-file.js";
export { defaultLogin, findLogin, listLogins } from "./lookup.js";
export {
  addLogin,
  checkLabel,
  removeLogin,
  renameLoginEntry,
  setDefaultLogin,
  setReserve,
  type AddLoginRequest,
  type RemoveLoginResult,
} from "./changes.js";
export { loginProcessEnv, ensureLoginHome, loginCommand } from "./env.js";
