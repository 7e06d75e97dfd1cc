export { default } from "./commands/agents.js";
