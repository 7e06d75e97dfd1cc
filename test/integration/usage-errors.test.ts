import { makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Every `offrun` command, found from the help itself (so a new one cannot be missed): its `--help`
// exits 0 with its usage; a flag it does not have, and a required argument left out, exit 2, "a
// command to fix" (docs/cli.md), with a pointer to that command's own help. Broke: subcommands'
// usage errors exited 1 (the exit handler was set after the commands were made, which copy it).
// None of these runs anything: each fails while commander parses the words.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-usage-");
});
afterAll(async () => {
  await box.cleanup();
});

const offrun = (...args: string[]) => runOffrun(args, { env: box.env, cwd: box.dir });

interface Listed {
  words: string[];
  usage: string;
}

/** The commands under `words` (the program when empty), each with its usage line, from the help. */
async function commandsOf(words: string[]): Promise<Listed[]> {
  const help = await offrun(...words, "--help");
  expect(help).toSucceed();
  const section = help.stdout.split("\nCommands:\n")[1] ?? "";
  const found: Listed[] = [];
  for (const line of section.split("\n")) {
    const match = /^ {2}([a-z][a-z-]*)(?: \[options\])?((?: [<[][^ ]+[>\]])*)\s/.exec(line);
    if (!match || match[1] === "help") continue;
    const here = [...words, match[1]!];
    found.push({ words: here, usage: match[2] ?? "" });
    found.push(...(await commandsOf(here)));
  }
  return found;
}

test("every command's help exits 0; a wrong flag and a missing argument exit 2 and point at its help", async () => {
  const commands = await commandsOf([]);
  expect(commands.length).toBeGreaterThan(30);
  const wrong: string[] = [];
  for (const { words, usage } of commands) {
    const name = `offrun ${words.join(" ")}`;
    const help = await offrun(...words, "--help");
    if (help.exitCode !== 0 || !help.stdout.startsWith(`Usage: ${name}`))
      wrong.push(`${name} --help: ${help.exitCode}`);
    const flag = await offrun(...words, "--no-such-flag");
    if (flag.exitCode !== 2 || !flag.stderr.includes(`${name} --help`)) {
      wrong.push(`${name} --no-such-flag: exit ${flag.exitCode}, ${flag.stderr.trim().split("\n")[0]}`);
    }
    if (usage.includes("<")) {
      const missing = await offrun(...words);
      if (missing.exitCode !== 2 || !/missing required argument|required option/.test(missing.stderr)) {
        wrong.push(`${name} without its arguments: exit ${missing.exitCode}, ${missing.stderr.trim().split("\n")[0]}`);
      }
    }
  }
  expect(wrong).toEqual([]);
}, 300_000);
