import { appendChat, readAgent, writeAgent } from "../../src/core/records/records.js";
import Agents from "../../src/commands/agents.js";
import { harnessContextWindow } from "../../src/commands/presenters/agents-overview.js";
import { runOffrun } from "../helpers/offrun.js";
import { render } from "../helpers/raycast-api-render.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";

let sandbox: FaceSandbox;
beforeEach(async () => {
  sandbox = await makeFaceSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

test.each([
  ["claude", "claude-opus-5-5", 1_000_000],
  ["claude", "claude-sonnet-4-5-20250929", 200_000],
  ["claude", "claude-sonnet-4-6[1m]", 1_000_000],
  ["claude", "claude-opus-4-8[1m]", 1_000_000],
  ["claude", "opus", undefined],
  ["claude", undefined, undefined],
  ["codex", "gpt-5.5", 272_000],
  ["codex", "gpt-6.2-sol", 500_000],
  ["codex", undefined, undefined],
  ["gemini", "gemini-2.5-flash", 1_048_576],
  ["gemini", "gemma-4-31b-it", 256_000],
  ["gemini", undefined, 1_048_576],
  ["pi", "anything", undefined],
  ["no-such-harness", "gpt-5.5", undefined],
])("the %s adapter gives model %s a context window of %s tokens", (harness, model, window) => {
  expect(harnessContextWindow(harness, model)).toBe(window);
});

test("Agents shows context as a share of the model's window where it is known, else as tokens", async () => {
  const env = { ...sandbox.box.env, OFFRUN_CLAUDE_BIN: sandbox.claudeStub };
  const started = await runOffrun(["start", "--wait", "--name", "upload", "fix the flaky upload test"], {
    env,
    cwd: sandbox.repo,
  });
  expect(started).toSucceed();
  const real = await readAgent(sandbox.repo, "upload");
  const at = new Date().toISOString();
  // The recorded Claude turn named its model (claude-opus-5-5, 1M window) in the stream's init line.
  await appendChat(sandbox.repo, "upload", {
    type: "usage",
    at,
    turn: 1,
    inputTokens: 2_000,
    cacheReadTokens: 248_000,
    outputTokens: 10,
  });
  // A Codex agent pinned to gpt-5.5 (272k), and one on Codex's default model, which no stream names.
  await writeAgent({ ...real, name: "pinned", harness: "codex", model: "gpt-5.5", updatedAt: at });
  await appendChat(sandbox.repo, "pinned", { type: "usage", at, turn: 1, inputTokens: 136_000, outputTokens: 10 });
  await writeAgent({ ...real, name: "unpinned", harness: "codex", updatedAt: at });
  await appendChat(sandbox.repo, "unpinned", { type: "usage", at, turn: 1, inputTokens: 45_000, outputTokens: 10 });

  const screen = render(<Agents />);
  // Beside the detail pane the row keeps its status only: the context is in the detail's metadata.
  const contextOf = async (name: string) =>
    screen.waitFor(() => {
      const row = screen.byTitle("List.Item", name);
      const found = screen.findAll("Metadata.Label", (l) => l.props.title === "Context", row.slots.detail)[0];
      if (!found) throw new Error(`no context label on ${name}`);
      return found.props.text;
    });
  expect(await contextOf("upload")).toBe("25% · 250k of 1.0M tokens (claude-opus-5-5)");
  expect(await contextOf("pinned")).toBe("50% · 136k of 272k tokens (gpt-5.5)");
  expect(await contextOf("unpinned")).toBe("45k tokens");
  screen.unmount();
});
