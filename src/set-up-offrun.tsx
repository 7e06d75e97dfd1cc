export { default } from "./commands/set-up-offrun.js";
