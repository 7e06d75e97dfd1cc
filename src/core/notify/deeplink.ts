import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentNotification } from "./classify.js";

/** The extension's manifest `author` and `name`, and the commands' `name`: a deeplink names all three. */
const OWNER = "offrun";
const EXTENSION = "offrun";
const AGENTS_COMMAND = "agents";
const REVIEW_COMMAND = "review-changes";
const MENU_BAR_COMMAND = "agent-quota";

/**
 * The deeplink that runs the menu bar command in the background, so that it reads state.json now
 * rather than at its next interval (developers.raycast.com: a deeplink's launchType=background).
 */
export const MENU_BAR_REFRESH_LINK = `raycast://extensions/${OWNER}/${EXTENSION}/${MENU_BAR_COMMAND}?launchType=background`;

/**
 * The Raycast deeplink that opens the Agents command on this agent (its launch context names the
 * project and agent; an external session opens the list). Format: developers.raycast.com
 * information/lifecycle/deeplinks, `context` being URL-encoded JSON.
 */
export function agentDeeplink(notification: Pick<AgentNotification, "project" | "agent" | "host" | "review">): string {
  const { project, agent, host, review } = notification;
  // A finished review opens its findings in Review Changes (src/commands/presenters/review-launch.ts reads the context).
  const command = review ? REVIEW_COMMAND : AGENTS_COMMAND;
  const context = JSON.stringify({ project, agent, ...(host ? { host } : {}), ...(review ? { review } : {}) });
  return `raycast://extensions/${OWNER}/${EXTENSION}/${command}?context=${encodeURIComponent(context)}`;
}

/**
 * Whether a click can open Raycast: only on macOS, and only with Raycast installed (a deeplink
 * nobody handles would make the click do nothing, or open a "no application" dialog).
 */
export function raycastIsInstalled(platform = process.platform, home = os.homedir()): boolean {
  if (platform !== "darwin") return false;
  return ["/Applications/Raycast.app", path.join(home, "Applications", "Raycast.app")].some((app) =>
    fs.existsSync(app),
  );
}
