export { default } from "./commands/agent-accounts.js";
