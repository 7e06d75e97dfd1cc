import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { ActionPanel, Form } from "@raycast/api";
import DictateTask from "../../src/commands/dictate-task.js";
import StartAgent from "../../src/commands/start-agent.js";
import { DictateAction } from "../../src/commands/lib/dictate-action.js";
import { installCommand } from "../../src/core/dictation/index.js";
import { render, type Screen } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";
import { makeFaceSandbox, type FaceSandbox } from "./face-sandbox.js";
import { isAlive } from "../../src/core/foundation/pids.js";

// Small executables stand in for sox's rec and whisper-cli, named in the preferences as command
// templates (test/e2e/dictation-real.test.ts runs the real sox and PocketSphinx).

let sandbox: FaceSandbox;
let bin: string;
beforeEach(async () => {
  sandbox = await makeFaceSandbox({
    files: { "README.md": "# demo\n", "src/retry.ts": "export const retryBackoffHelper = 1;\n" },
  });
  bin = path.join(sandbox.box.dir, "bin");
  await fs.mkdir(bin);
  await fs.writeFile(path.join(bin, "model.bin"), "model");
});
afterEach(async () => sandbox.cleanup());

async function stub(name: string, lines: string[]): Promise<string> {
  const file = path.join(bin, name);
  await fs.writeFile(file, ["#!/bin/sh", ...lines, ""].join("\n"), { mode: 0o755 });
  return file;
}
const writesWav = 'for a in "$@"; do case "$a" in *.wav) printf RIFF > "$a";; esac; done';

async function prefer(options: { recorder?: string[]; heard?: string }) {
  const recorder = await stub("rec", options.recorder ?? [writesWav]);
  const speech = await stub("whisper-cli", [
    `echo ' ${options.heard ?? "make the retry backoff helper configurable"}'`,
  ]);
  Object.assign(runtime.preferences, {
    recorderPath: `${recorder} -q -c 1 -r 16000 -b 16 {file} trim 0 60 silence 1 0.1 1% 1 2.0 1%`,
    speechToolPath: `${speech} -m {model} -f {file} -nt`,
    speechModel: path.join(bin, "model.bin"),
  });
}

const launches = () => runtime.calls.filter((c) => c.kind === "launchCommand").map((c) => c.args[0]);
const markdown = (screen: Screen) => String(screen.find("Detail").props.markdown);

test("it records, transcribes, puts in the project's spellings and opens Start Agent with the text", async () => {
  await prefer({});
  const screen = render(<DictateTask />);
  await screen.waitFor(() => expect(launches()).toHaveLength(1));
  expect(launches()[0]).toEqual({
    name: "start-agent",
    type: "userInitiated",
    context: { prompt: "make the `retryBackoffHelper` configurable" },
  });
  expect(markdown(screen)).toContain("> make the `retryBackoffHelper` configurable");
  screen.unmount();
});

test("Start Agent opens holding the dictated task, and sends nothing until it is submitted", async () => {
  const screen = render(
    <StartAgent
      launchType={"userInitiated" as never}
      arguments={{}}
      launchContext={{ prompt: "fix `upload.test.js`" }}
    />,
  );
  await screen.waitFor(() => expect(screen.findField("project").children).toHaveLength(1));
  expect(screen.findField("prompt").props.value).toBe("fix `upload.test.js`");
  expect(runtime.toasts.map((t) => t.title)).not.toContain("Starting agent…");
  screen.unmount();
});

test("with the recorder missing, it says what to install and offers the preferences", async () => {
  await prefer({});
  runtime.preferences.recorderPath = "/nonexistent/rec {file}";
  const screen = render(<DictateTask />);
  await screen.waitFor(() => expect(markdown(screen)).toContain("# Dictation Is Not Set Up"));
  expect(markdown(screen)).toContain("The recorder '/nonexistent/rec' was not found. Install sox, which provides rec");
  const titles = screen.actionsOf(screen.find("Detail")).map((a) => a.props.title);
  expect(titles[0]).toBe("Open Extension Preferences");
  const install = installCommand("rec");
  if (install) {
    await screen.press(screen.action(screen.find("Detail"), "Copy Install Command"));
    expect(runtime.clipboard).toEqual([install]);
  }
  expect(launches()).toEqual([]);
  screen.unmount();
});

test("Stop Recording ends the recording early, and what was said is still transcribed", async () => {
  // A recorder that would go on for a minute: only Stop ends it.
  const started = path.join(bin, "rec.started");
  await prefer({ recorder: [writesWav, `touch '${started}'`, "exec sleep 60"] });
  const screen = render(<DictateTask />);
  await screen.waitFor(() => expect(markdown(screen)).toContain("# Listening…"));
  await screen.waitFor(() => readFileSync(started));
  const pressed = Date.now();
  await screen.press(screen.action(screen.find("Detail"), "Stop Recording"));
  await screen.waitFor(() => expect(launches()).toHaveLength(1));
  expect(Date.now() - pressed).toBeLessThan(5_000);
  screen.unmount();
});

test("nothing heard offers to try again and opens nothing", async () => {
  await prefer({ heard: "[BLANK_AUDIO]" });
  const screen = render(<DictateTask />);
  await screen.waitFor(() => expect(markdown(screen)).toContain("# Nothing Heard"));
  expect(screen.actionsOf(screen.find("Detail")).map((a) => a.props.title)).toEqual(["Try Again"]);
  expect(launches()).toEqual([]);
  screen.unmount();
});

test("closing the command while it records ends the recorder and sends nothing", async () => {
  const pidFile = path.join(bin, "rec.pid");
  await prefer({ recorder: [writesWav, `echo $$ > '${pidFile}'`, "exec sleep 60"] });
  const screen = render(<DictateTask />);
  await screen.waitFor(() => expect(markdown(screen)).toContain("# Listening…"));
  const pid = Number(await screen.waitFor(() => readFileSync(pidFile, "utf8")));
  screen.unmount();
  await screen.waitFor(() => expect(isAlive(pid)).toBe(false));
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(launches()).toEqual([]);
});

function FormWithDictate(props: { onText: (text: string) => void }) {
  return (
    <Form
      actions={
        <ActionPanel>
          <DictateAction onText={props.onText} />
        </ActionPanel>
      }
    />
  );
}

test("a form's Dictate becomes Show Dictation Setup, saying what to install, when the speech tool is missing", async () => {
  await prefer({});
  runtime.preferences.speechToolPath = "/nonexistent/whisper-cli -f {file}";
  const screen = render(<FormWithDictate onText={() => undefined} />);
  const setUp = await screen.waitFor(() => screen.action(screen.find("Form"), "Show Dictation Setup"));
  await screen.press(setUp);
  const toast = runtime.toasts.at(-1)!;
  expect(toast.title).toBe("Dictation Is Not Set Up");
  expect(toast.message).toContain("The speech tool '/nonexistent/whisper-cli' was not found. Install whisper.cpp");
  expect(toast.primaryAction?.title).toBe("Open Extension Preferences");
  screen.unmount();
});

test("a form's Dictate hands the words to the form when the tools are there", async () => {
  await prefer({ heard: "fix the upload" });
  const heard: string[] = [];
  const screen = render(<FormWithDictate onText={(text) => heard.push(text)} />);
  await screen.settle(200);
  await screen.press(screen.action(screen.find("Form"), "Dictate"));
  await screen.waitFor(() => expect(heard).toEqual(["fix the upload"]));
  screen.unmount();
});
