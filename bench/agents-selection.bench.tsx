import { List } from "@raycast/api";
import { performance } from "node:perf_hooks";
import { AgentActions } from "../src/commands/agents/agent-actions.js";
import { loadAgentsOverview } from "../src/commands/presenters/agents-overview-load.js";
import { makeFaceSandbox } from "../test/commands/face-sandbox.js";
import { runOffrun } from "../test/helpers/offrun.js";
import { render, type UiNode } from "../test/helpers/raycast-api-render.js";

// Selecting a row in Agents: the time from rendering the selected row's actions to its action panel
// being ready (no submenu loading). Run by hand, through the stand-in:
//   node --experimental-vm-modules node_modules/jest/bin/jest.js --testMatch '<rootDir>/bench/*.bench.tsx' bench/agents-selection.bench.tsx

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

test("selection to a ready action panel", async () => {
  const sandbox = await makeFaceSandbox();
  try {
    const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
    expect(
      await runOffrun(["start", "--wait", "--name", "upload", "fix the upload"], { env, cwd: sandbox.repo }),
    ).toSucceed();
    const overview = await loadAgentsOverview({ env: process.env });
    const row = overview.groups[0]!.agents.find((a) => a.record.name === "upload")!;
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const screen = render(
        <List searchBarPlaceholder="Filter agents">
          <List.Item title="upload" actions={<AgentActions row={row} detail={undefined} reload={() => undefined} />} />
        </List>,
      );
      const loading = (s: UiNode) => s.props.isLoading === true;
      await screen.waitFor(() => expect(screen.findAll("ActionPanel.Submenu").some(loading)).toBe(false), 120_000);
      times.push(performance.now() - started);
      screen.unmount();
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(
      `selection → action panel ready, ${RUNS} runs: min ${sorted[0]!.toFixed(0)} ms, median ${median.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(", ")})`,
    );
  } finally {
    await sandbox.cleanup();
  }
}, 900_000);
