import path from "node:path";
import Agents from "../../src/commands/agents.js";
import { writeHostileSsh } from "../helpers/hostile-host.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

// A host whose two agents' logs (2 MB each) pass the 3 MB its copies may hold here: the second is
// refused, and the Agents view names it under the host, with why and the command that lets it in.

let sandbox: FaceSandbox;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
  const bin = await writeHostileSsh(sandbox.box.dir);
  env = { ...sandbox.box.env, PATH: `${bin}${path.delimiter}${sandbox.box.env.PATH}` };
  expect(await runOffrun(["hosts", "add", "evil-budget", "evil-budget", "--folder-mb", "3"], { env })).toSucceed();
  expect(await runOffrun(["companion", "start"], { env })).toSucceed();
});
afterEach(async () => {
  await runOffrun(["companion", "stop"], { env });
  await sandbox.cleanup();
});

test("Agents names a host's agent whose log is over the host's budget, with the command that raises it", async () => {
  // Broke: over-budget was said only in the companion's log; the view showed the agent as if copied.
  const screen = render(<Agents />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "Not Copied: a2"), 30_000);
  expect(screen.find("List.Section", (s) => s.props.title === "evil-budget").children).toContain(item);
  const detail = String(screen.find("List.Item.Detail", undefined, item.slots.detail).props.markdown);
  expect(detail).toContain("is not copied here past 0.0 MB of its 2.0 MB log");
  expect(detail).toContain("of the 3.0 MB they may");
  expect(screen.action(item, "Copy Budget Command").props.content).toBe(
    "offrun hosts budget evil-budget --folder-mb 6",
  );
  screen.unmount();
}, 60_000);
