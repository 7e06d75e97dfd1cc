export { default } from "./commands/project-memory.js";
