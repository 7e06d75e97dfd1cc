import fs from "node:fs/promises";
import path from "node:path";
import { PROTOCOL_VERSION } from "../../src/core/protocol/protocol-views.js";
import { agentRecord } from "./records.js";

// A host's replies are input: its sizes, offsets, volume and shape too. A scripted hostile
// `offrun companion stdio` stands behind a fake `ssh` first on PATH and speaks the real protocol (a
// JSON-RPC message a line), one misbehaviour per host, named by the host: evil-<mode>.

/** The project on the hostile host. */
export const PROJECT = "/srv/app";

/** The hostile host: answers hello and ping, then misbehaves as HOSTILE_MODE says. */
export function hostileScript(record: unknown): string {
  return `const mode = process.env.HOSTILE_MODE;
const record = ${JSON.stringify(record)};
const line = '{"type":"assistant_text","at":"2026-12-07T10:00:00.000Z","turn":1,"text":"' + "y".repeat(80) + '"}';
// An honest log of 2 MB or just under: whole lines only.
const whole = Math.floor((2 * 1024 * 1024) / (line.length + 1)) * (line.length + 1);
let pending = "";
let round = 0;
const send = (message) => process.stdout.write(JSON.stringify(message) + "\\n");
const reply = (id, result) => send({ jsonrpc: "2.0", id, result });
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let end;
  while ((end = pending.indexOf("\\n")) >= 0) {
    const message = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (message.method === undefined) continue;
    handle(message);
  }
});
function handle({ id, method, params }) {
  if (method === "hello") {
    reply(id, { protocol: ${PROTOCOL_VERSION}, version: "6.6.6", hostname: "evil" });
    if (mode === "junk") setImmediate(function flood() { if (process.stdout.write("x\\n".repeat(1000))) setImmediate(flood); else process.stdout.once("drain", flood); });
    if (mode === "requests") {
      process.stdin.pause();
      let n = 0;
      const flood = () => { while (process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: ++n, method: "agents.list", params: {} }) + "\\n")); process.stdout.once("drain", flood); };
      setImmediate(flood);
    }
    return;
  }
  if (method === "ping") return reply(id, { pid: 1, version: "6.6.6", startedAt: "2026-12-07T00:00:00.000Z", running: 0 });
  if (method === "changes.wait") return setTimeout(() => reply(id, { token: "t" + ++round }), 200);
  if (method === "agents.list") {
    const chatBytes = mode === "replaced" ? (round % 2 ? 2 * 1024 * 1024 : 0) : 4096;
    const listed = mode === "control" ? { ...record, worktree: record.worktree + "\\necho pwned" } : record;
    // Two honest agents of 2 MB each: more than a folder budget of 3 MB holds together.
    const agents = mode === "budget"
      ? ["a1", "a2"].map((name) => ({ record: { ...record, name, worktree: "${PROJECT}/.worktrees/" + name, branch: "offrun/" + name }, chatBytes: whole }))
      : [{ record: listed, chatBytes }];
    return reply(id, { hostname: "evil", projects: [{ root: "${PROJECT}", agents, unreadable: [] }] });
  }
  if (method === "chat.read") {
    if (mode === "offsets") return reply(id, { lines: Array(10000).fill(line), next: params.offset + 1, size: 4096 });
    if (mode === "budget") {
      const lines = Array((whole - params.offset) / (line.length + 1)).fill(line);
      return reply(id, { lines, next: whole, size: whole });
    }
    // Honest lines, as many as fill the size it said.
    const lines = Array(Math.ceil((2 * 1024 * 1024 - params.offset) / (line.length + 1))).fill(line);
    return reply(id, { lines, next: params.offset + lines.length * (line.length + 1), size: 2 * 1024 * 1024 });
  }
  if (method === "agent.show" && mode === "control") {
    return reply(id, { agent: { ...record, worktree: record.worktree + "\\necho pwned" }, pending: [], events: [], corruptLines: 0 });
  }
  if (method === "agent.show" && mode === "deep") {
    return process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"agent":' + "[".repeat(100000) + "]".repeat(100000) + "}}\\n");
  }
  send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Unhandled method " + method } });
}
`;
}

/**
 * Writes the hostile host and a fake `ssh` in `dir`/bin that, whatever it is asked, starts it in the
 * mode its host's name says (evil-<mode>). Returns the folder to put first on PATH.
 */
export async function writeHostileSsh(dir: string): Promise<string> {
  const bin = path.join(dir, "bin");
  await fs.mkdir(bin, { recursive: true });
  const script = path.join(dir, "hostile.cjs");
  await fs.writeFile(script, hostileScript(agentRecord(PROJECT, "a1", { status: "working" })));
  await fs.writeFile(
    path.join(bin, "ssh"),
    `#!/bin/sh\nfor arg; do case "$arg" in evil-*) mode=\${arg#evil-};; esac; done\nHOSTILE_MODE=$mode exec '${process.execPath}' '${script}'\n`,
    { mode: 0o755 },
  );
  return bin;
}
