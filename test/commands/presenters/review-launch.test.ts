import fs from "node:fs/promises";
import path from "node:path";
import { loadLaunchedReview } from "../../../src/commands/presenters/review-launch.js";
import { mirrorFile } from "../../../src/core/companion/mirror.js";
import { makeSandbox, useSandboxInProcess, type Sandbox } from "../../helpers/offrun.js";

// A finished review of a host's agent opens from the companion's copy of its log, read line by
// line as a stream: the copy may hold hundreds of MB, and it was read whole.

let box: Sandbox;
const saved = { ...process.env };
beforeEach(async () => {
  box = await makeSandbox("offrun-review-launch-");
  useSandboxInProcess(box);
});
afterEach(async () => {
  process.env = { ...saved };
  await box.cleanup();
});

const review = (id: string, at: string) => ({
  type: "review",
  id,
  reviewer: { harness: "codex", account: "default" },
  outcome: "failed",
  reason: `review ${id}`,
  findings: [],
  blockedWrites: [],
  scope: { base: "HEAD", commits: 0, files: 0 },
  at,
  turn: 1,
});

test("the review a host's notification names is found in the copy, the last of that id", async () => {
  const file = mirrorFile("devbox", "/srv/app", "fix");
  await fs.mkdir(path.dirname(file), { recursive: true });
  const filler = JSON.stringify({ type: "text", text: "x".repeat(2000), at: "2026-12-08T00:00:00.000Z", turn: 1 });
  const lines = [
    JSON.stringify(review("r1", "2026-12-08T00:00:01.000Z")),
    ...Array.from({ length: 3000 }, () => filler),
    JSON.stringify(review("r2", "2026-12-08T00:00:02.000Z")),
    "not json",
    ...Array.from({ length: 3000 }, () => filler),
  ];
  await fs.writeFile(file, lines.join("\n") + "\n");
  const context = { host: "devbox", project: "/srv/app", agent: "fix" };
  expect(await loadLaunchedReview({ ...context, review: "r2" })).toMatchObject({ id: "r2", reason: "review r2" });
  expect(await loadLaunchedReview({ ...context, review: "r1" })).toMatchObject({ id: "r1" });
  expect(await loadLaunchedReview({ ...context, review: "gone" })).toBeUndefined();
  expect(await loadLaunchedReview({ ...context, agent: "nobody", review: "r1" })).toBeUndefined();
});
