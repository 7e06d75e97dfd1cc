export { default } from "./commands/review-changes.js";
