import fs from "node:fs";
import path from "node:path";
import { Command, type Option } from "commander";
import { COMMAND_ALIASES, COMMANDS } from "../../src/cli/commands.js";
import { withGlobals } from "../../src/cli/define.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Every `offrun ...` command that Offrun's own words advise (in an error, a warning, a screen, a
// notification, a comment that documents one), found in the source at each run, so that a new
// one cannot be missed: each names a command that exists and only flags that command takes. A
// message advising `--cli` or `--planner`, which no command took, sent the user to a usage error.
// What each advised command then does in the situation that prints it is followed, one class at a
// time, in test/integration/advice-kept.test.ts and the tests named beside each message.

interface Advice {
  file: string;
  line: number;
  command: string;
}

/** Every backticked `offrun ...` in src/ (escaped as \` inside template literals). */
function advisedCommands(): Advice[] {
  const found: Advice[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name)) {
        const lines = fs.readFileSync(file, "utf8").split("\n");
        lines.forEach((text, index) => {
          const comment = /^\s*(\/\/|\*|\/\*)/.test(text);
          for (const match of text.matchAll(/\\?`(offrun [^`]*?)\\?`/g)) {
            // A command quoted inside words: an escaped backtick in a template literal, a backtick in a
            // "..." string or in a comment. An unescaped one in code opens a template literal instead.
            const before = text.slice(0, match.index);
            const inString = (before.match(/(?<!\\)"/g) ?? []).length % 2 === 1;
            if (!match[0].startsWith("\\") && !comment && !inString) continue;
            found.push({ file: path.relative(PROJECT_ROOT, file), line: index + 1, command: match[1]! });
          }
        });
      }
    }
  };
  walk(path.join(PROJECT_ROOT, "src"));
  return found;
}

/** The whole CLI's command tree, as `offrun` defines it. */
function program(): Command {
  const root = withGlobals(new Command("offrun")).enablePositionalOptions();
  for (const define of Object.values(COMMANDS)) define(root);
  return root;
}

/** The words of an advised command: interpolations and placeholders stand for one word each. */
function words(command: string): string[] {
  // The first of chained commands (`offrun companion uninstall && rm -rf ...`) is offrun's.
  return command
    .split(/&&|\|\||;|\|/)[0]!
    .replace(/\$\{[^}]*\}/g, "X")
    .replace(/<[^>]+>/g, "X")
    .replace(/'[^']*'|"[^"]*"/g, "X")
    .split(/\s+/)
    .filter(Boolean);
}

const flagsOf = (command: Command): Set<string> =>
  new Set(
    (command.options as Option[]).flatMap((option) => [option.long, option.short].filter((f): f is string => !!f)),
  );

/** Why the advised command would be a usage error, or undefined when it parses. */
function problem(root: Command, command: string): string | undefined {
  const [, ...rest] = words(command);
  let at = root;
  let i = 0;
  // The command words: as deep as subcommands go.
  while (i < rest.length && !rest[i]!.startsWith("-")) {
    const word = COMMAND_ALIASES[rest[i]!] && at === root ? COMMAND_ALIASES[rest[i]!]! : rest[i]!;
    const sub = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    at = sub;
    i += 1;
  }
  if (at === root && rest.length > 0 && !rest[0]!.startsWith("-") && rest[0] !== "X") {
    return `there is no command '${rest[0]}'`;
  }
  const flags = new Set([...flagsOf(at), ...flagsOf(root), "--help", "-h", "--version", "-V"]);
  for (const word of rest.slice(i)) {
    if (!word.startsWith("-") || word === "-" || word === "--") continue;
    const flag = word.split("=")[0]!;
    // `--no-x` is commander's negation of `--x`.
    if (!flags.has(flag) && !(flag.startsWith("--no-") && flags.has(`--${flag.slice(5)}`))) {
      return `'${at.name()}' takes no ${flag}`;
    }
  }
  return undefined;
}

test("every offrun command Offrun advises exists and takes the flags it is given", () => {
  const advice = advisedCommands();
  // The table is read from the source: a few hundred places today, never none.
  expect(advice.length).toBeGreaterThan(100);
  const root = program();
  const wrong = advice
    .map((a) => ({ ...a, why: problem(root, a.command) }))
    .filter((a) => a.why !== undefined)
    .map((a) => `${a.file}:${a.line}: \`${a.command}\`: ${a.why}`);
  expect(wrong).toEqual([]);
});

test("the check itself refuses a command or flag that does not exist", () => {
  const root = program();
  expect(problem(root, "offrun ls --cli codex")).toBeUndefined();
  expect(problem(root, "offrun ls --planner")).toBe("'ls' takes no --planner");
  expect(problem(root, "offrun frobnicate")).toBe("there is no command 'frobnicate'");
  expect(problem(root, "offrun logins rm claude ${label} --force")).toBeUndefined();
  expect(problem(root, "offrun accounts rm claude work")).toBeUndefined();
});
