import { readSnapshot } from "../../../../src/core/companion/snapshot.js";
import { writeSnapshots } from "../../../../src/core/companion/snapshot-writer.js";
import { userPaths } from "../../../../src/core/foundation/paths.js";
import { rememberProject } from "../../../../src/core/foundation/project.js";
import { makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../../../helpers/offrun.js";

// Regression: with a known project, chokidar (used before) said "ready" while the writer was still making the project's agents
// folder, before it listened: `ready` never resolved and the first state.json waited for a change.

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox("offrun-snap-ready-");
  useSandboxInProcess(box);
});
afterEach(async () => {
  await box.cleanup();
});

test("the first snapshot is written at start when projects are known", async () => {
  const repo = await makeRepo(`${box.dir}/demo`, box.env);
  await rememberProject(repo);
  const writer = await writeSnapshots({
    companion: { pid: process.pid, version: "test", startedAt: new Date().toISOString() },
    notifications: () => [],
    log: () => undefined,
  });
  const ready = await Promise.race([
    writer.ready.then(() => "ready"),
    new Promise((resolve) => setTimeout(() => resolve("still waiting"), 5_000)),
  ]);
  await writer.close();
  expect(ready).toBe("ready");
  expect(await readSnapshot(userPaths().state)).toMatchObject({ companion: { pid: process.pid } });
});
