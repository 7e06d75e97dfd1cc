#!/usr/bin/env node
// A stand-in for Antigravity's `agy`, which does not install here. It replays the fixtures in
// test/fixtures/agy/ (each line cited to the public record it comes from) and does what they
// say agy does around them: keeps conversations/<id>.db (+ -wal, -shm) under
// $HOME/.gemini/antigravity-cli, resumes one with --conversation, retries an exhausted quota
// until --print-timeout, writes the file a write_to_file step names. What it does per call comes
// from the JSON file named by FAKE_AGY_SCRIPT:
//   { "version": "1.2.3", "signedIn": true, "turns": [ { "scenario": "text", "text": "…" }, … ] }
// Each turn takes the next entry; a quota entry stays (an exhausted login stays exhausted).
// Every call is logged to <script>.calls.jsonl: argv, stdin, HOME and the history it resumed.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "agy");
const scriptFile = process.env.FAKE_AGY_SCRIPT;
if (!scriptFile) {
  process.stderr.write("fake agy: FAKE_AGY_SCRIPT is not set\n");
  process.exit(70);
}
const script = JSON.parse(fs.readFileSync(scriptFile, "utf8"));
const argv = process.argv.slice(2);

function flag(name, aliases = []) {
  for (const n of [name, ...aliases]) {
    const i = argv.indexOf(n);
    if (i >= 0) return argv[i + 1];
    const eq = argv.find((a) => a.startsWith(`${n}=`));
    if (eq !== undefined) return eq.slice(n.length + 1);
  }
  return undefined;
}

/** A Go duration ("60m", "20s", "1m30s") in seconds. */
function seconds(text) {
  let total = 0;
  for (const [, n, unit] of String(text).matchAll(/(\d+(?:\.\d+)?)(h|m|s)/g))
    total += Number(n) * { h: 3600, m: 60, s: 1 }[unit];
  return total;
}

function log(entry) {
  fs.appendFileSync(`${scriptFile}.calls.jsonl`, `${JSON.stringify({ argv, home: process.env.HOME, ...entry })}\n`);
}

/** Plays one fixture: directive lines in order, `#` lines are its citations. */
async function play(name, values, actions) {
  const text = fs.readFileSync(path.join(FIXTURES, `${name}.stream`), "utf8");
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const space = line.indexOf(" ");
    const verb = space < 0 ? line : line.slice(0, space);
    const rest = space < 0 ? "" : line.slice(space + 1);
    const fill = (escape) =>
      rest.replace(/\{\{(\w+)\}\}/g, (_, key) => {
        const value = String(values[key] ?? "");
        return escape ? JSON.stringify(value).slice(1, -1) : value;
      });
    if (verb === "stdout") process.stdout.write(`${fill(true)}\n`);
    else if (verb === "stderr") process.stderr.write(`${fill(false)}\n`);
    else if (verb === "exit") process.exit(Number(rest));
    else await actions[verb]();
  }
}

async function readStdin() {
  if (process.stdin.isTTY) return "";
  let data = "";
  for await (const chunk of process.stdin) data += chunk;
  return data;
}

if (argv[0] === "--version" || argv[0] === "-v") {
  await play("version", { version: script.version ?? "1.2.3" }, {});
}
if (argv[0] === "models") {
  log({ call: "models" });
  await play(script.signedIn === false ? "models-signed-out" : "models", {}, {});
}

// A turn. The prompt is -p's value, or stdin without it (1.1.2+).
const promptFlag = flag("-p", ["--print", "--prompt"]);
const prompt = promptFlag ?? (await readStdin());
const home = process.env.HOME ?? "";
const conversations = path.join(home, ".gemini", "antigravity-cli", "conversations");
const resume = flag("--conversation");
const conversationId = resume ?? crypto.randomUUID();
const db = path.join(conversations, `${conversationId}.db`);
const readLines = (file) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
let history = [];
if (resume) {
  if (!fs.existsSync(db)) {
    // Not agy's output: 1.0.3 hung on an unknown id (agy-plugin-cc agy-transcript.mjs); failing
    // at once makes a test that forgot to copy the conversation fail instead of hanging.
    log({ stdin: promptFlag === undefined ? prompt : undefined, error: "unknown conversation" });
    process.stderr.write(`fake agy: no conversation ${conversationId} in ${conversations}\n`);
    process.exit(1);
  }
  history = [...readLines(db), ...readLines(`${db}-wal`)].map((l) => JSON.parse(l).prompt);
}

const state = `${scriptFile}.state`;
const index = fs.existsSync(state) ? Number(fs.readFileSync(state, "utf8")) : 0;
const turn = script.turns?.[index] ?? { scenario: "text", text: "(the fake agy has no more scripted turns)" };
const mode = flag("--mode") ?? "request-review";
const isProbe = flag("--print-timeout") !== undefined && seconds(flag("--print-timeout")) < 60;
log({ stdin: promptFlag === undefined ? prompt : undefined, history, turn: index, probe: isProbe });
const exhausted = turn.scenario === "quota-retrying";
// A probe on a healthy login answers and leaves the script alone.
if (!exhausted && !isProbe) fs.writeFileSync(state, String(index + 1));
const scenario = exhausted
  ? "quota-retrying"
  : isProbe
    ? "text"
    : turn.scenario === "write-file" && mode === "plan"
      ? "write-file-plan"
      : turn.scenario;

const printTimeout = seconds(flag("--print-timeout") ?? "0s") || Infinity;
const waited = Math.min(printTimeout, turn.retrySeconds ?? Infinity);
const values = {
  conversation_id: conversationId,
  cwd: process.cwd(),
  model: flag("--model") ?? "gemini-3.6-flash-low",
  permission_mode: mode,
  text: isProbe ? "OK" : (turn.text ?? ""),
  path: turn.path ?? "",
  command: turn.command ?? "",
  resets_in: turn.resetsIn ?? "2h39m52s",
  print_timeout: `${waited}s`,
  num_turns: history.length + 1,
};
await play(scenario, values, {
  "write-file": async () => {
    fs.mkdirSync(path.dirname(turn.path), { recursive: true });
    fs.writeFileSync(turn.path, turn.content ?? "");
  },
  think: () => new Promise((resolve) => setTimeout(resolve, (turn.thinkSeconds ?? 0) * 1000)),
  "wait-print-timeout": () => new Promise((resolve) => setTimeout(resolve, waited * 1000)),
  // The stand-in database is JSON lines, not SQLite: earlier turns are "checkpointed" into .db,
  // the newest stays in -wal, so a copy that leaves the WAL behind loses the last turn.
  "save-conversation": async () => {
    fs.mkdirSync(conversations, { recursive: true });
    fs.appendFileSync(
      db,
      readLines(`${db}-wal`)
        .map((l) => `${l}\n`)
        .join(""),
    );
    fs.writeFileSync(`${db}-wal`, `${JSON.stringify({ prompt })}\n`);
    fs.writeFileSync(`${db}-shm`, `index of ${conversationId}\n`);
  },
});
