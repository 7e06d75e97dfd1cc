/**
 * Writes a synthetic history for bench/quota-scan.ts: Claude Code session files and Codex rollouts
 * whose lines copy the shapes the pinned CLIs wrote in test/fixtures/claude/2.1.332/quota-home and
 * test/fixtures/codex/0.171.0/quota-home (key order, line kinds, sizes), with random ids, text and
 * usage. Older Claude sessions use the pre-2.1 `requestId`; 2.1.332 ones `requestRef`.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const HOUR = 3_600_000;
const FILLER = makeFiller(1 << 20);

function makeFiller(length: number): string {
  const words = ["const", "value", "return", "function", "import", "the", "file", "test", "error", "await"];
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const word = words[Math.floor(Math.random() * words.length)]!;
    const piece = Math.random() < 0.08 ? `${word}\\n` : `${word} `;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join("");
}

const rand = (min: number, max: number) => Math.floor(min + Math.random() * (max - min));
/** Filler text of about `length` characters, already escaped for a JSON string. */
function text(length: number): string {
  const start = rand(0, FILLER.length - length - 2);
  return FILLER.slice(start, start + length).replace(/\\$/, "");
}
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

interface ClaudeSession {
  id: string;
  cwd: string;
  start: number;
  bytes: number;
  legacy: boolean;
  sidechain: boolean;
  /** Longest pause between two lines; short for the sessions of the last hours, so none runs into the future. */
  stepMs: number;
}

function claudeLines(session: ClaudeSession, agentId?: string): string[] {
  const { id, cwd } = session;
  const version = session.legacy ? "2.0.76" : "2.1.332";
  const tail = `"userType":"external","entrypoint":"sdk-cli","cwd":"${cwd}","sessionId":"${id}","version":"${version}","gitBranch":"main"}`;
  const side = agentId ? `"isSidechain":true,"agentId":"${agentId}"` : `"isSidechain":false`;
  let at = session.start;
  const ts = () => new Date((at += rand(500, session.stepMs))).toISOString();
  let parent = randomUUID();
  const lines: string[] = [];
  const push = (line: string) => lines.push(line);
  if (!agentId) {
    push(
      `{"type":"queue-operation","operation":"enqueue","timestamp":"${ts()}","sessionId":"${id}","content":"${text(80)}"}`,
    );
    push(`{"type":"queue-operation","operation":"dequeue","timestamp":"${ts()}","sessionId":"${id}"}`);
  }
  push(
    `{"parentUuid":null,${side},"type":"user","message":{"role":"user","content":"${text(rand(40, 600))}"},"uuid":"${parent}","timestamp":"${ts()}",${tail}`,
  );
  for (let i = rand(4, 9); i > 0; i--) {
    const uuid = randomUUID();
    push(
      `{"parentUuid":"${parent}",${side},"attachment":{"type":"environment","text":"${text(rand(400, 12_000))}"},"type":"attachment","uuid":"${uuid}","timestamp":"${ts()}","rendered":[{"content":"${text(200)}"}],${tail}`,
    );
    parent = uuid;
  }
  if (!session.legacy)
    push(
      `{"type":"api-request-shape","sessionId":"${id}","shapeHash":"${hex(32)}","timestamp":"${ts()}","version":"${version}","shape":{"system":[{"type":"text","text":"${text(rand(15_000, 38_000))}"}]}}`,
    );
  let bytes = lines.reduce((sum, line) => sum + line.length + 1, 0);
  const target = agentId ? session.bytes / 5 : session.bytes;
  while (bytes < target) {
    const before = lines.length;
    const ref = randomUUID();
    if (!session.legacy)
      push(
        `{"type":"api-request","sessionId":"${id}","id":"${ref}","timestamp":"${ts()}","version":"${version}","querySource":"sdk","params":{"model":"claude-sonnet-5-5","max_tokens":128000},"requestDigest":"${hex(32)}"}`,
      );
    const request = session.legacy
      ? `"requestId":"req_${hex(12)}"`
      : `"requestRef":"${ref}","requestedModel":"claude-sonnet-5-5"`;
    const msg = `msg_${hex(12)}`;
    const created = rand(0, 20_000);
    const usage = `"usage":{"input_tokens":${rand(1, 5000)},"cache_creation_input_tokens":${created},"cache_read_input_tokens":${rand(10_000, 150_000)},"output_tokens":${rand(50, 3000)},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":${created},"ephemeral_5m_input_tokens":0}}`;
    const assistant = (content: string) => {
      const uuid = randomUUID();
      push(
        `{"parentUuid":"${parent}",${side},"message":{"id":"${msg}","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[${content}],"stop_reason":"tool_use",${usage},"stop_details":null},${request},"type":"assistant","uuid":"${uuid}","timestamp":"${ts()}",${tail}`,
      );
      parent = uuid;
    };
    assistant(`{"type":"text","text":"${text(rand(100, 1500))}"}`);
    const toolId = `toolu_${hex(12)}`;
    // Streaming writes a second line for the same message, with the same usage.
    if (Math.random() < 0.7) {
      assistant(
        `{"type":"tool_use","id":"${toolId}","name":"Write","input":{"file_path":"${cwd}/src/${hex(4)}.ts","content":"${text(rand(100, 4000))}"}}`,
      );
      const uuid = randomUUID();
      const output = text(rand(300, 12_000));
      push(
        `{"parentUuid":"${parent}",${side},"type":"user","message":{"role":"user","content":[{"tool_use_id":"${toolId}","type":"tool_result","content":"${output}"}]},"uuid":"${uuid}","timestamp":"${ts()}","toolUseResult":{"stdout":"${output}","stderr":"","interrupted":false},${tail}`,
      );
      parent = uuid;
    }
    for (let i = before; i < lines.length; i++) bytes += lines[i]!.length + 1;
  }
  if (!agentId)
    push(
      `{"type":"cost-state","sessionId":"${id}","totalCostUSD":0,"totalDuration":${rand(1000, 90_000)},"modelUsage":{}}`,
    );
  return lines;
}

/** Claude Code's project folder name: every character but a letter or digit becomes "-". */
const projectFolder = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, "-");

/** Writes `sessions` Claude sessions of `totalBytes` in all under `<home>/projects`; returns the newest file. */
export function writeClaudeHistory(home: string, sessions: number, totalBytes: number, now: number): string {
  let newest = { at: 0, file: "" };
  for (let i = 0; i < sessions; i++) {
    const cwd = `/home/dev/work/project-${i % 40}`;
    // Spread over 30 days; the last few sessions fall in the current 5-hour block.
    const start = i >= sessions - 5 ? now - rand(HOUR / 2, 2 * HOUR) : now - rand(3 * HOUR, 30 * 24 * HOUR);
    const session: ClaudeSession = {
      id: randomUUID(),
      cwd,
      start,
      bytes: (totalBytes / sessions) * (0.3 + Math.random() * 1.4),
      legacy: i % 5 < 2,
      sidechain: i % 7 === 0,
      stepMs: i >= sessions - 5 ? 4_000 : 40_000,
    };
    const dir = path.join(home, "projects", projectFolder(cwd));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${session.id}.jsonl`);
    fs.writeFileSync(file, claudeLines(session).join("\n") + "\n");
    if (start > newest.at) newest = { at: start, file };
    if (session.sidechain) {
      const agentId = hex(8).slice(0, 17);
      const agentDir = path.join(dir, session.id, "subagents");
      fs.mkdirSync(agentDir, { recursive: true });
      fs.writeFileSync(path.join(agentDir, `agent-${agentId}.jsonl`), claudeLines(session, agentId).join("\n") + "\n");
    }
  }
  return newest.file;
}

/** One more assistant line, as 2.1.332 writes it, for the refresh measurement. */
export function claudeAppendLine(at: number): string {
  const usage = `{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5}`;
  return `{"parentUuid":"${randomUUID()}","isSidechain":false,"message":{"id":"msg_${hex(12)}","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[{"type":"text","text":"Appended."}],"stop_reason":"end_turn","usage":${usage}},"requestRef":"${randomUUID()}","type":"assistant","uuid":"${randomUUID()}","timestamp":"${new Date(at).toISOString()}"}\n`;
}

function tokenCount(at: number, used: number, resetsAt: number): string {
  const window = (percent: number, minutes: number, reset: number) =>
    `{"used_percent":${percent.toFixed(1)},"window_minutes":${minutes},"resets_at":${Math.floor(reset / 1000)}}`;
  const usage = `{"input_tokens":${rand(1000, 90_000)},"cached_input_tokens":${rand(0, 80_000)},"output_tokens":${rand(10, 4000)},"reasoning_output_tokens":0,"total_tokens":${rand(1000, 90_000)}}`;
  return `{"timestamp":"${new Date(at).toISOString()}","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":${usage},"last_token_usage":${usage},"model_context_window":258400},"rate_limits":{"limit_id":"codex","limit_name":null,"primary":${window(used, 300, resetsAt)},"secondary":${window(used / 3, 10080, resetsAt + 4 * 24 * HOUR)},"credits":null,"plan_type":null}}}`;
}

/** Writes Codex rollouts of `totalBytes` in all under `<home>/sessions/YYYY/MM/DD/`. */
export function writeCodexHistory(home: string, files: number, totalBytes: number, now: number): void {
  for (let i = 0; i < files; i++) {
    let at = i === files - 1 ? now - HOUR : now - rand(2 * HOUR, 30 * 24 * HOUR);
    const ts = () => new Date((at += rand(1000, 30_000))).toISOString();
    const id = randomUUID();
    const lines = [
      `{"timestamp":"${ts()}","type":"session_meta","payload":{"id":"${id}","cwd":"/home/dev/work/p","originator":"codex_exec","cli_version":"0.171.0","base_instructions":{"text":"${text(22_000)}"}}}`,
    ];
    let bytes = lines[0]!.length;
    const target = (totalBytes / files) * (0.3 + Math.random() * 1.4);
    while (bytes < target) {
      const turn = [
        `{"timestamp":"${ts()}","type":"turn_context","payload":{"cwd":"/home/dev/work/p","model":"gpt-5.5","summary":"${text(2000)}"}}`,
        `{"timestamp":"${ts()}","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"${text(rand(100, 3000))}"}]}}`,
        `{"timestamp":"${ts()}","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"${text(300)}","call_id":"call_${hex(8)}"}}`,
        `{"timestamp":"${ts()}","type":"response_item","payload":{"type":"function_call_output","call_id":"call_${hex(8)}","output":"${text(rand(300, 10_000))}"}}`,
        `{"timestamp":"${ts()}","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"${text(rand(100, 2000))}"}]}}`,
        tokenCount(at, rand(0, 99), at + 3 * HOUR),
      ];
      lines.push(...turn);
      for (const line of turn) bytes += line.length + 1;
    }
    const day = new Date(at).toISOString().slice(0, 10).split("-");
    const dir = path.join(home, "sessions", ...day);
    fs.mkdirSync(dir, { recursive: true });
    const stamp = new Date(at).toISOString().slice(0, 19).replace(/:/g, "-");
    fs.writeFileSync(path.join(dir, `rollout-${stamp}-${id}.jsonl`), lines.join("\n") + "\n");
  }
}
