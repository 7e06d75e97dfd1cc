import { readFile } from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import type { ParsedEvent } from "../../../../src/core/foundation/events.js";
import { createAcpUpdateMapper } from "../../../../src/harnesses/acp/index.js";
import { promptUsageEvent } from "../../../../src/harnesses/acp/updates.js";
import { ofType } from "../../../helpers/events.js";
import { PROJECT_ROOT } from "../../../helpers/offrun.js";

/**
 * The session/update mapping on traffic recorded from the real CLIs
 * (test/integration/harnesses/acp/live-turn.test.ts records it).
 */

const line = z.union([
  z.object({ method: z.literal("session/update"), params: z.object({ update: z.unknown() }) }),
  z.object({ id: z.union([z.number(), z.string()]), result: z.object({ stopReason: z.string() }).passthrough() }),
  z.unknown(),
]);

async function replay(cli: string, version: string, scenario: string): Promise<ParsedEvent[]> {
  const text = await readFile(
    path.join(PROJECT_ROOT, "test", "fixtures", "acp", cli, version, `${scenario}.jsonl`),
    "utf8",
  );
  const mapper = createAcpUpdateMapper();
  const events: ParsedEvent[] = [];
  for (const raw of text.split("\n").filter((l) => l.trim() !== "")) {
    const message = line.parse(JSON.parse(raw));
    const update = z
      .object({ method: z.literal("session/update"), params: z.object({ update: z.unknown() }) })
      .safeParse(message);
    if (update.success) events.push(...mapper.push(update.data.params.update));
    const result = z.object({ result: z.object({ stopReason: z.string() }).passthrough() }).safeParse(message);
    if (result.success) {
      events.push(...mapper.flush());
      const usage = promptUsageEvent(result.data.result);
      if (usage) events.push(usage);
    }
  }
  return [...events, ...mapper.flush()];
}

describe.each([
  ["gemini", "0.61.0"],
  ["opencode", "1.18.33"],
])("%s %s", (cli, version) => {
  test("a text turn is one whole message and the prompt's usage", async () => {
    const events = await replay(cli, version, "text");
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello from the fake model."]);
    expect(ofType(events, "usage")).toHaveLength(1);
  });

  test("an allowed write is one tool call with its input and one successful result, between the messages", async () => {
    const events = await replay(cli, version, "write-allowed");
    expect(events.filter((e) => e.type !== "usage").map((e) => e.type)).toEqual([
      "text",
      "tool_call",
      "tool_result",
      "text",
    ]);
    const [call] = ofType(events, "tool_call");
    expect(call?.name).toBe("edit");
    expect(JSON.stringify(call?.input)).toContain("hello.txt");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ isError: false });
  });

  test("a rejected write never yields a successful tool result", async () => {
    const events = await replay(cli, version, "write-rejected");
    expect(ofType(events, "tool_result").filter((r) => !r.isError)).toEqual([]);
  });
});

test("OpenCode's rejected write is reported as a failed tool call", async () => {
  const events = await replay("opencode", "1.18.33", "write-rejected");
  expect(ofType(events, "tool_result")).toEqual([expect.objectContaining({ isError: true })]);
});

test("chunks without a break in between coalesce; plans and usage updates map to notice and usage", () => {
  const mapper = createAcpUpdateMapper();
  const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
  const events = [
    ...mapper.push(chunk("Hel")),
    ...mapper.push(chunk("lo")),
    ...mapper.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } }),
    ...mapper.push({
      sessionUpdate: "plan",
      entries: [
        { content: "Read", status: "completed", priority: "high" },
        { content: "Write", status: "pending", priority: "high" },
      ],
    }),
    ...mapper.push({
      sessionUpdate: "usage_update",
      used: 1200,
      size: 200000,
      cost: { amount: 0.02, currency: "USD" },
    }),
    ...mapper.flush(),
  ];
  expect(events).toEqual([
    { type: "text", text: "Hello" },
    { type: "notice", level: "info", message: "Plan:\n[x] Read\n[ ] Write" },
    { type: "usage", inputTokens: 1200, outputTokens: 0, costUsd: 0.02 },
  ]);
});
