#!/usr/bin/env node
// A stand-in for xAI's Grok Build CLI (`grok`), which does not install here. Every line it writes
// comes from test/fake-grok/fixtures.txt, where each one names the vendor source it reproduces;
// this script only picks the fixture, fills in the ids, and plays the model's part (what it says
// and which tools it calls follow the prompt). The login's server-side state (a used-up free tier,
// a rate limit) is a file in the login's home, `fake-xai.json`, since the real one lives at xAI;
// `dropPromptAnswer` there loses the answer to session/prompt, as the vendor's client guards against.
//
//   grok --version | -v            the version line
//   grok login                     writes $GROK_HOME/auth.json (the browser sign-in, stood in for)
//   grok agent [-m MODEL] stdio    ACP on stdin/stdout
//   grok -p PROMPT … | --prompt-file FILE …   headless, --output-format streaming-json
//
// Each start is logged, one line of argv, to $GROK_HOME/fake-grok.argv.

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const grokHome = process.env.GROK_HOME || path.join(process.env.HOME || os.homedir(), ".grok");

/** The fixtures by name: the `> ` lines under each `## name`. */
function loadFixtures() {
  const fixtures = new Map();
  let current;
  for (const line of fs.readFileSync(path.join(here, "fixtures.txt"), "utf8").split("\n")) {
    if (line.startsWith("## ")) {
      current = [];
      fixtures.set(line.slice(3).trim(), current);
    } else if (line.startsWith("> ") && current) current.push(line.slice(2));
  }
  return fixtures;
}
const fixtures = loadFixtures();

/** A fixture's line with its {{placeholders}} filled: a whole-string placeholder takes the value's type. */
function render(name, vars = {}, index = 0) {
  const template = fixtures.get(name)?.[index];
  if (template === undefined) throw new Error(`fake grok: no fixture ${name}`);
  if (!template.startsWith("{")) return template;
  const filled = template.replace(/\{\{count\}\}/g, String(vars.count ?? 0));
  const fill = (value) => {
    if (typeof value === "string") {
      const whole = /^\{\{(\w+)\}\}$/.exec(value);
      if (whole) return vars[whole[1]] ?? null;
      return value.replace(/\{\{(\w+)\}\}/g, (_, key) => String(vars[key] ?? ""));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return fill(JSON.parse(filled));
}

function logArgv() {
  fs.mkdirSync(grokHome, { recursive: true });
  fs.appendFileSync(path.join(grokHome, "fake-grok.argv"), `${argv.join(" ")}\n`);
}

function serverState() {
  try {
    return JSON.parse(fs.readFileSync(path.join(grokHome, "fake-xai.json"), "utf8"));
  } catch {
    return {};
  }
}

const signedIn = () => fs.existsSync(path.join(grokHome, "auth.json"));

/** encode_cwd_dirname (xai-grok-config/src/paths.rs): the URL-encoded cwd, all but A-Za-z0-9-_.~ escaped. */
const encodeCwd = (cwd) =>
  encodeURIComponent(cwd).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function sessionDir(cwd, id) {
  return path.join(grokHome, "sessions", encodeCwd(cwd), id);
}

function findSession(id) {
  const root = path.join(grokHome, "sessions");
  for (const folder of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    const dir = path.join(root, folder, id);
    if (fs.existsSync(path.join(dir, "updates.jsonl"))) return dir;
  }
  return undefined;
}

/** Runs the `Stop` hooks of $GROK_HOME/hooks/*.json ("Stop" or "stop", event.rs aliases) with the payload on stdin. */
async function runStopHooks(payload) {
  const dir = path.join(grokHome, "hooks");
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".json")) : [];
  for (const file of files) {
    let config;
    try {
      config = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
    } catch {
      continue;
    }
    for (const key of ["Stop", "stop"]) {
      for (const matcher of config.hooks?.[key] ?? []) {
        for (const hook of matcher.hooks ?? []) {
          if (hook.type !== "command") continue;
          await new Promise((resolve) => {
            const child = spawn("sh", ["-c", hook.command], { stdio: ["pipe", "ignore", "ignore"] });
            const timer = setTimeout(() => child.kill("SIGKILL"), (hook.timeout ?? 60) * 1000);
            child.on("close", () => {
              clearTimeout(timer);
              resolve();
            });
            child.stdin.end(JSON.stringify(payload));
          });
        }
      }
    }
  }
}

function option(name, short) {
  const at = argv.findIndex((a) => a === name || (short && a === short));
  return at >= 0 ? argv[at + 1] : undefined;
}

// ---------------------------------------------------------------- headless (`grok -p`)

async function headless() {
  const prompt = option("--single", "-p") ?? fs.readFileSync(option("--prompt-file"), "utf8");
  const write = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
  if (!signedIn()) {
    // A stderr message, not a JSON line: the sign-in fails before the session starts.
    process.stderr.write(`${render("headless-not-signed-in").replaceAll("\\n", "\n")}\n`);
    process.exit(1);
  }
  if (serverState().freeUsageExhausted) {
    process.stdout.write(`${JSON.stringify(render("headless-error"))}\n`);
    process.exit(1);
  }
  const sessionId = option("--resume", "-r") ?? randomUUID();
  const yolo = argv.includes("--yolo") || option("--permission-mode") === "bypassPermissions";
  // Headless answers every permission prompt "cancelled" unless always-approve (headless.rs:1591-1610):
  // a write outside acceptEdits' synthetic Allow Edit rule, or any shell command, ends the turn so.
  const needsPrompt = /\brun\b/i.test(prompt) && !yolo;
  if (!needsPrompt) write(render("headless-text", { text: "Hello from fake Grok Build." }));
  write(
    render("headless-end", { stopReason: needsPrompt ? "cancelled" : "end_turn", sessionId, promptId: randomUUID() }),
  );
}

// ---------------------------------------------------------------- ACP (`grok agent stdio`)

async function acp() {
  let model = option("--model", "-m") ?? "grok-build";
  let authenticated = false;
  let nextId = 1;
  const waiting = new Map();
  const sessions = new Map();
  const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
  const request = (message) =>
    new Promise((resolve) => {
      waiting.set(message.id, resolve);
      send(message);
    });
  const signedInNow = () => authenticated || signedIn();

  const update = (session, name, vars) => {
    const line = render(name, { sessionId: session.id, ...vars });
    fs.appendFileSync(path.join(session.dir, "updates.jsonl"), `${JSON.stringify(line)}\n`);
    send(line);
  };
  const say = (session, text) => {
    session.lastText = text;
    update(session, "message-chunk", { text });
  };

  function openSession(id, cwd, found) {
    const dir = found ?? sessionDir(cwd, id);
    fs.mkdirSync(dir, { recursive: true });
    if (!fs.existsSync(path.join(dir, "updates.jsonl"))) fs.writeFileSync(path.join(dir, "updates.jsonl"), "");
    const prompts = fs
      .readFileSync(path.join(dir, "updates.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes('"user_message_chunk"')).length;
    const session = { id, cwd, dir, mode: "default", prompts, cancelled: false, lastText: "" };
    sessions.set(id, session);
    return session;
  }

  const writeSummary = (session) =>
    fs.writeFileSync(
      path.join(session.dir, "summary.json"),
      JSON.stringify(
        render("summary", {
          sessionId: session.id,
          cwd: session.cwd,
          model,
          timestamp: new Date().toISOString(),
          count: session.prompts,
        }),
      ),
    );

  async function editFile(session, file) {
    const toolCallId = `call_${randomUUID().slice(0, 8)}`;
    const content = "written by fake Grok Build\n";
    const target = path.resolve(session.cwd, file);
    update(session, "tool-call-edit", { toolCallId, path: target, content });
    const answer = await request(
      render("permission-edit", { id: nextId++, sessionId: session.id, toolCallId, path: target, content }),
    );
    const chosen = answer.result?.outcome?.optionId;
    if (chosen === "allow-once" || chosen === "allow-edits-session") {
      fs.writeFileSync(target, content);
      update(session, "tool-completed", { toolCallId, path: target });
      say(session, `Created ${file}.`);
    } else {
      update(session, "tool-rejected", { toolCallId });
      say(session, `I did not create ${file}.`);
    }
  }

  async function prompt(session, text) {
    const state = serverState();
    const promptId = randomUUID();
    const asked = render("user-message", { sessionId: session.id, text });
    fs.appendFileSync(path.join(session.dir, "updates.jsonl"), `${JSON.stringify(asked)}\n`);
    const earlier = session.prompts;
    session.prompts += 1;
    writeSummary(session);
    const complete = (stopReason) => send(render("prompt-complete", { sessionId: session.id, promptId, stopReason }));
    if (state.freeUsageExhausted || state.rateLimited) {
      complete("rate_limit");
      return { error: render(state.freeUsageExhausted ? "free-usage-exhausted" : "rate-limited", { id: 0 }).error };
    }
    // The model's own enter_plan_mode tool moves a Build session into plan mode (updates.rs:1133).
    if (/\bplan first\b/i.test(text)) session.mode = "plan";
    if (session.mode === "plan") {
      say(session, "I looked at the project and wrote a plan.");
      const plan = "# Plan\n1. Create notes.md with a summary.";
      const answer = await request(
        render("exit-plan-mode", {
          id: nextId++,
          sessionId: session.id,
          toolCallId: `call_${randomUUID().slice(0, 8)}`,
          plan,
        }),
      );
      if (answer.result?.outcome === "approved") {
        session.mode = "default";
        await editFile(session, "notes.md");
      } else say(session, "Staying in plan mode; nothing was changed.");
    } else if (/ask me/i.test(text)) {
      const answer = await request(
        render("ask-user-question", {
          id: nextId++,
          sessionId: session.id,
          toolCallId: `call_${randomUUID().slice(0, 8)}`,
          askMode: "default",
        }),
      );
      const result = answer.result ?? {};
      if (result.outcome === "accepted") {
        const [[question, picked]] = Object.entries(result.answers);
        const notes = result.annotations?.[question]?.notes;
        say(session, `You answered "${picked.join(", ")}"${notes ? ` (${notes})` : ""}.`);
      } else say(session, "No answer; I will use my best judgment.");
    } else if (/\bcreate (\S+)/i.test(text)) {
      await editFile(session, /\bcreate (\S+)/i.exec(text)[1]);
    } else {
      say(session, `Hello from fake Grok Build (${model}). This session has ${earlier} earlier prompts.`);
    }
    const stopReason = session.cancelled ? "cancelled" : "end_turn";
    session.cancelled = false;
    // The Stop hook fires before the turn reports its end (stop_gate.rs runs inside the turn).
    if (stopReason === "end_turn") {
      await runStopHooks(
        render("hook-stop", {
          sessionId: session.id,
          cwd: session.cwd,
          timestamp: new Date().toISOString(),
          promptId,
          text: session.lastText,
        }),
      );
    }
    complete(stopReason);
    // The lost answer the vendor reconciles from prompt_complete (xai-grok-pager/src/app/acp_handler/mod.rs:716).
    if (state.dropPromptAnswer) return undefined;
    return { result: render("prompt-response", { id: 0, sessionId: session.id, promptId, stopReason, model }).result };
  }

  async function handle(message) {
    const { id, method, params } = message;
    const reply = (name, vars = {}) => send(render(name, { id, ...vars }));
    switch (method) {
      case "initialize":
        return reply("initialize");
      case "authenticate":
        if (params?.methodId === "cached_token" && signedIn()) {
          authenticated = true;
          return reply("authenticated");
        }
        return reply("auth-required");
      case "session/new": {
        if (!signedInNow()) return reply("auth-required");
        const session = openSession(randomUUID(), params.cwd);
        writeSummary(session);
        return reply("session-new", { sessionId: session.id, cwd: params.cwd, model });
      }
      case "session/load":
      case "session/resume": {
        if (!signedInNow()) return reply("auth-required");
        const dir = findSession(params.sessionId);
        if (!dir) return reply("session-not-found", { sessionId: params.sessionId });
        // The session stays in the folder of the cwd it began in.
        openSession(params.sessionId, params.cwd, dir);
        if (method === "session/load") {
          for (const line of fs.readFileSync(path.join(dir, "updates.jsonl"), "utf8").split("\n").filter(Boolean))
            send(JSON.parse(line));
        }
        return reply(method === "session/load" ? "session-load" : "session-resume", { model });
      }
      case "session/set_mode": {
        const session = sessions.get(params.sessionId);
        // Unknown ids fall back to default (session_mode.rs): never an error.
        if (session) session.mode = ["default", "plan", "ask"].includes(params.modeId) ? params.modeId : "default";
        fs.appendFileSync(path.join(grokHome, "fake-grok.modes"), `${params.modeId}\n`);
        return reply(["default", "plan", "ask"].includes(params.modeId) ? "empty-result" : "unknown-mode");
      }
      case "session/set_model":
        model = params.modelId;
        return reply("empty-result");
      case "session/prompt": {
        const session = sessions.get(params.sessionId);
        const text = params.prompt.map((block) => block.text ?? "").join("");
        const outcome = await prompt(session, text);
        return outcome && send({ jsonrpc: "2.0", id, ...outcome });
      }
      case "session/cancel": {
        const session = sessions.get(params.sessionId);
        if (session) session.cancelled = true;
        return undefined;
      }
      default:
        if (id !== undefined) reply("method-not-found", { method });
    }
  }

  const lines = readline.createInterface({ input: process.stdin });
  const pending = [];
  lines.on("line", (line) => {
    if (line.trim() === "") return;
    const message = JSON.parse(line);
    if (message.method === undefined && waiting.has(message.id)) {
      const resolve = waiting.get(message.id);
      waiting.delete(message.id);
      return resolve(message);
    }
    pending.push(handle(message));
  });
  await new Promise((resolve) => lines.on("close", resolve));
  await Promise.allSettled(pending);
  // The client went away: each session ends with its observe-only Stop (stop_gate.rs, run_loop.rs:455).
  for (const session of sessions.values()) {
    await runStopHooks(
      render("hook-session-end-stop", { sessionId: session.id, cwd: session.cwd, timestamp: new Date().toISOString() }),
    );
  }
}

// ---------------------------------------------------------------- entry

if (argv.includes("--version") || argv[0] === "-v") {
  process.stdout.write(`${render("version")}\n`);
} else {
  logArgv();
  if (argv[0] === "login") {
    fs.writeFileSync(path.join(grokHome, "auth.json"), JSON.stringify({ fake: true }), { mode: 0o600 });
  } else if (argv[0] === "agent" && argv.at(-1) === "stdio") {
    await acp();
  } else if (argv.includes("-p") || argv.includes("--single") || argv.includes("--prompt-file")) {
    await headless();
  } else {
    process.stderr.write(`fake grok: unsupported arguments ${argv.join(" ")}\n`);
    process.exit(2);
  }
}
