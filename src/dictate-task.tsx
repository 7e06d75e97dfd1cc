export { default } from "./commands/dictate-task.js";
