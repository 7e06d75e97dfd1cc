export { default } from "./commands/agent-quota.js";
