export { default } from "./commands/start-agent.js";
