import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { agentDeeplink, raycastIsInstalled } from "../../../../src/core/notify/deeplink.js";

describe("the Raycast deeplink of a notification", () => {
  it("opens the Agents command with the project and agent as its launch context", () => {
    const link = new URL(agentDeeplink({ project: "/work/shop & co", agent: "fix-login" }));
    expect(`${link.protocol}//${link.host}${link.pathname}`).toBe("raycast://extensions/offrun/offrun/agents");
    expect(JSON.parse(link.searchParams.get("context") ?? "")).toEqual({
      project: "/work/shop & co",
      agent: "fix-login",
    });
  });

  // A finished review's notification opened the Agents list: its findings were a scroll away, or lost.
  it("opens Review Changes on the findings when the notification is about a review", () => {
    const link = new URL(agentDeeplink({ project: "/work/shop", agent: "fix-login", host: "devbox", review: "r1a2b" }));
    expect(`${link.protocol}//${link.host}${link.pathname}`).toBe("raycast://extensions/offrun/offrun/review-changes");
    expect(JSON.parse(link.searchParams.get("context") ?? "")).toEqual({
      project: "/work/shop",
      agent: "fix-login",
      host: "devbox",
      review: "r1a2b",
    });
  });

  it("is only offered on macOS with Raycast installed", async () => {
    const home = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-deeplink-"));
    expect(raycastIsInstalled("linux", home)).toBe(false);
    const systemWide = await fs.stat("/Applications/Raycast.app").then(
      () => true,
      () => false,
    );
    expect(raycastIsInstalled("darwin", home)).toBe(systemWide);
    await fs.mkdir(path.join(home, "Applications", "Raycast.app"), { recursive: true });
    expect(raycastIsInstalled("darwin", home)).toBe(true);
    expect(raycastIsInstalled("linux", home)).toBe(false);
  });
});
