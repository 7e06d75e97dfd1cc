import fs from "node:fs/promises";
import path from "node:path";
import { readAgent, writeAgent } from "../../src/core/records/records.js";
import { isAlive } from "../../src/core/foundation/pids.js";
import Agents from "../../src/commands/agents.js";
import { eventually, runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// After `kill -9` of the companion, the Agents command went on showing its
// agents as working until some command started a new companion. Only a companion carries a turn
// on, so the view shows such a turn as it will be after recovery: interrupted, with what to do.

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

test("an agent left working by a killed companion shows as interrupted, with what to do", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  expect(
    await runOffrun(["start", "--wait", "--name", "upload", "fix the upload test"], { env, cwd: sandbox.repo }),
  ).toSucceed();
  // The record as the companion writes it while a turn runs.
  const real = await readAgent(sandbox.repo, "upload");
  await writeAgent({ ...real, name: "busy", status: "working", turnStartedAt: new Date().toISOString() });

  const pidFile = path.join(sandbox.box.offrunHome, "run", "companion.pid");
  const pid = Number((await fs.readFile(pidFile, "utf8")).trim());
  process.kill(pid, "SIGKILL");
  await eventually(async () => (isAlive(pid) ? undefined : true), 10_000, "the companion's end");

  const screen = render(<Agents />);
  const busy = await screen.waitFor(() => screen.byTitle("List.Item", "busy"));
  const tag = (busy.props.accessories as { tag?: { value: string } }[]).at(-1)!.tag!.value;
  expect(tag).toBe("Failed");
  await screen.waitFor(() => {
    const detail = screen.find("List.Item.Detail", undefined, screen.byTitle("List.Item", "busy").slots.detail);
    expect(String(detail.props.markdown)).toContain("the companion is not running");
  });
  // The record itself is left for the next companion to recover (it ends the orphaned CLI first).
  expect((await readAgent(sandbox.repo, "busy")).status).toBe("working");
  screen.unmount();
});
