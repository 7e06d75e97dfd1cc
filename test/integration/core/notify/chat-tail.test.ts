import fs from "node:fs/promises";
import path from "node:path";
import { followChats, type ChatFollower, type TailedEvent } from "../../../../src/core/notify/chat-tail.js";
import { holds, makeSandbox, type Sandbox } from "../../../helpers/offrun.js";

// A project's chats/ folder as a long-lived project has it: hundreds of logs, one new agent at a time.

let box: Sandbox;
let follower: ChatFollower | undefined;

beforeEach(async () => {
  box = await makeSandbox("offrun-chat-tail-");
});

afterEach(async () => {
  await follower?.close();
  follower = undefined;
  await box.cleanup();
});

const line = (text: string, turn = 1) =>
  `${JSON.stringify({ type: "text", text, at: "2026-12-05T10:00:00.000Z", turn })}\n`;

test("among 300 logs, a new agent's first line, an old agent's next line and a log made again are each read once", async () => {
  const root = path.join(box.home, "project");
  const chats = path.join(root, ".offrun", "chats");
  await fs.mkdir(chats, { recursive: true });
  await Promise.all(
    Array.from({ length: 300 }, (_, i) => fs.writeFile(path.join(chats, `old-${i}.jsonl`), line(`history ${i}`))),
  );
  const seen: TailedEvent[] = [];
  follower = await followChats({ projects: [root], onEvent: (tailed) => seen.push(tailed) });
  await follower.ready;
  const said = () => seen.map(({ agent, event }) => `${agent}: ${event.type === "text" ? event.text : event.type}`);

  await fs.appendFile(path.join(chats, "new-one.jsonl"), line("first words"));
  await fs.appendFile(path.join(chats, "old-7.jsonl"), line("more", 2));
  await holds(() => expect(said()).toEqual(expect.arrayContaining(["new-one: first words", "old-7: more"])));
  // A burst of appends is read in order, each line once.
  for (let i = 0; i < 20; i++) await fs.appendFile(path.join(chats, "new-one.jsonl"), line(`step ${i}`));
  await holds(() => expect(said().filter((s) => s.startsWith("new-one: step"))).toHaveLength(20));
  expect(said().filter((s) => s.startsWith("new-one: step"))).toEqual(
    Array.from({ length: 20 }, (_, i) => `new-one: step ${i}`),
  );
  // Removed (a discarded agent) and made again under its name: read from its start.
  await fs.rm(path.join(chats, "old-9.jsonl"));
  await holds(async () => expect(await fs.readdir(chats)).not.toContain("old-9.jsonl"));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await fs.writeFile(path.join(chats, "old-9.jsonl"), line("a new old-9"));
  await holds(() => expect(said()).toContain("old-9: a new old-9"));

  await new Promise((resolve) => setTimeout(resolve, 200));
  // Nothing that was there before the follow began is news.
  expect(said().filter((s) => s.includes("history"))).toEqual([]);
  expect(said().filter((s) => s === "new-one: first words" || s === "old-7: more")).toHaveLength(2);
});

test("replaying from the start reads every log there, once", async () => {
  const root = path.join(box.home, "project");
  const chats = path.join(root, ".offrun", "chats");
  await fs.mkdir(chats, { recursive: true });
  await fs.writeFile(path.join(chats, "a.jsonl"), line("one") + line("two"));
  const seen: string[] = [];
  follower = await followChats({
    projects: [root],
    fromStart: true,
    onEvent: ({ agent, event }) => seen.push(`${agent}: ${event.type === "text" ? event.text : event.type}`),
  });
  await holds(() => expect(seen).toEqual(["a: one", "a: two"]));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(seen).toEqual(["a: one", "a: two"]);
});
