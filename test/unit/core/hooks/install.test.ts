import fs from "node:fs/promises";
import path from "node:path";
import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { hookStatus, installHook, uninstallHook } from "../../../../src/core/hooks/install.js";
import { BUILTIN_HARNESSES } from "../../../../src/harnesses/registry.js";
import { makeSandbox, type Sandbox } from "../../../helpers/offrun.js";
import { failure } from "../../../helpers/failure.js";

let sandbox: Sandbox;
let home: string;
const hookArgv = ["/usr/bin/node", "/opt/off run/bin/offrun.js"];

beforeEach(async () => {
  sandbox = await makeSandbox("offrun-hooks-");
  home = path.join(sandbox.dir, "cli-home");
  await fs.mkdir(home);
});
afterEach(async () => {
  await fs.rm(sandbox.dir, { recursive: true, force: true });
});

const request = (id: string) => ({
  harness: BUILTIN_HARNESSES.find((h) => h.id === id)!,
  login: { label: "default", home },
  hookArgv,
  env: sandbox.env,
});
const settings = () => path.join(home, "settings.json");
const config = () => path.join(home, "config.toml");

describe("Claude Code settings.json", () => {
  const originals: Record<string, string> = {
    "four-space indent and a final newline": '{\n    "model": "opus",\n    "env": { "A": "1" }\n}\n',
    "tab indent and no final newline": '{\n\t"permissions": {\n\t\t"allow": ["Bash(ls)"]\n\t}\n}',
    "existing hooks of the user": JSON.stringify(
      { hooks: { Stop: [{ hooks: [{ type: "command", command: "say done" }] }] }, zz: 1, aa: 2 },
      null,
      3,
    ),
    "CRLF line endings": '{\r\n  "theme": "dark"\r\n}\r\n',
  };

  it.each(Object.entries(originals))("install then uninstall gives back the same bytes (%s)", async (_, text) => {
    await fs.writeFile(settings(), text);
    expect((await installHook(request("claude"))).outcome).toBe("installed");
    const installed = await fs.readFile(settings(), "utf8");
    const parsed = JSON.parse(installed) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    expect(parsed.hooks.Notification).toHaveLength(1);
    // The sandbox's OFFRUN_HOME is not the default, so the hook carries it: Claude runs it without our env.
    expect(parsed.hooks.Stop!.at(-1)!.hooks[0]!.command).toBe(
      `/usr/bin/node '/opt/off run/bin/offrun.js' hook claude --offrun-home=${sandbox.offrunHome}`,
    );
    // Everything else is as it was: same keys in the same order, same indentation and ending.
    expect(Object.keys(parsed)).toEqual([
      ...Object.keys(JSON.parse(text) as object),
      ...(text.includes("hooks") ? [] : ["hooks"]),
    ]);
    expect(installed.split(/\r?\n/)[1]!.match(/^\s*/)![0]).toBe(text.split(/\r?\n/)[1]!.match(/^\s*/)![0]);
    expect(installed.endsWith("\n")).toBe(text.endsWith("\n"));
    expect(installed.includes("\r\n")).toBe(text.includes("\r\n"));
    expect(text.includes("say done")).toBe(installed.includes("say done"));
    await expect(fs.readFile(`${settings()}.offrun-backup`, "utf8")).resolves.toBe(text);

    expect((await uninstallHook(request("claude"))).outcome).toBe("restored");
    expect(await fs.readFile(settings())).toEqual(Buffer.from(text));
    await expect(fs.stat(`${settings()}.offrun-backup`)).rejects.toThrow();
  });

  it("installing twice changes nothing the second time", async () => {
    await fs.writeFile(settings(), '{\n  "model": "opus"\n}\n');
    await installHook(request("claude"));
    const once = await fs.readFile(settings());
    expect((await installHook(request("claude"))).outcome).toBe("already");
    expect(await fs.readFile(settings())).toEqual(once);
    await uninstallHook(request("claude"));
    await expect(fs.readFile(settings(), "utf8")).resolves.toBe('{\n  "model": "opus"\n}\n');
  });

  it("a settings file Offrun created is deleted on uninstall, and hooks.json is private", async () => {
    await installHook(request("claude"));
    expect((await hookStatus(request("claude"))).present).toBe(true);
    const record = await fs.stat(path.join(sandbox.offrunHome, "hooks.json"));
    expect(record.mode & 0o777).toBe(0o600);
    expect((await uninstallHook(request("claude"))).outcome).toBe("deleted");
    await expect(fs.stat(settings())).rejects.toThrow();
    expect(await hookStatus(request("claude"))).toMatchObject({ recorded: false, present: false });
  });

  it("refuses to uninstall over a change made since, unless forced, and keeps that change aside", async () => {
    const original = '{\n  "model": "opus"\n}\n';
    await fs.writeFile(settings(), original);
    await installHook(request("claude"));
    const edited = (await fs.readFile(settings(), "utf8")).replace('"opus"', '"sonnet"');
    await fs.writeFile(settings(), edited);
    expect((await hookStatus(request("claude"))).changedSince).toBe(true);

    const error = await failure(uninstallHook(request("claude")));
    expect(isOffrunError(error, "conflict")).toBe(true);
    expect(error.message).toMatch(/changed since.*--force/s);
    await expect(fs.readFile(settings(), "utf8")).resolves.toBe(edited);

    const forced = await uninstallHook({ ...request("claude"), force: true });
    expect(forced.replacedCopy).toBe(`${settings()}.offrun-replaced`);
    await expect(fs.readFile(settings(), "utf8")).resolves.toBe(original);
    await expect(fs.readFile(forced.replacedCopy!, "utf8")).resolves.toBe(edited);
  });

  it("refuses a settings file that is not JSON and leaves it alone", async () => {
    await fs.writeFile(settings(), "{ nope");
    const error = await failure(installHook(request("claude")));
    expect(isOffrunError(error, "invalid_file")).toBe(true);
    await expect(fs.readFile(settings(), "utf8")).resolves.toBe("{ nope");
  });
});

describe("Codex config.toml", () => {
  const notifyLine = () =>
    `notify = ["/usr/bin/node", "/opt/off run/bin/offrun.js", "hook", "codex", "--offrun-home=${sandbox.offrunHome}"]`;
  const originals: Record<string, string> = {
    "top-level keys, then tables": 'model = "o3" # mine\n\n# providers\n[model_providers.fake]\nbase_url = "x"\n',
    "only tables": "[features]\nplugins = false\n",
    "no final newline": 'model = "o3"',
    "a multi-line array and string before the tables":
      'a = [\n  "[x]",\n  1,\n]\nb = """\n[not a table]\n"""\n[t]\nc = 1\n',
  };

  it.each(Object.entries(originals))("install then uninstall gives back the same bytes (%s)", async (_, text) => {
    await fs.writeFile(config(), text);
    await installHook(request("codex"));
    const installed = await fs.readFile(config(), "utf8");
    // Exactly one line added, before the first table, and nothing else touched.
    expect(installed.replace(notifyLine() + "\n", "").replace("\n" + notifyLine(), "")).toBe(text);
    const tableAt = installed.search(/^\[[a-z_.]+\]$/m); // "[not a table]" sits in a string
    expect(installed.indexOf(notifyLine())).toBeLessThan(tableAt === -1 ? Infinity : tableAt);
    expect(await installHook(request("codex"))).toMatchObject({ outcome: "already" });

    await uninstallHook(request("codex"));
    expect(await fs.readFile(config())).toEqual(Buffer.from(text));
  });

  it("puts notify after the last top-level key, not between a comment and its table", async () => {
    await fs.writeFile(config(), 'model = "o3"\n\n# providers\n[p]\n');
    await installHook(request("codex"));
    await expect(fs.readFile(config(), "utf8")).resolves.toBe(`model = "o3"\n${notifyLine()}\n\n# providers\n[p]\n`);
  });

  it("refuses clearly when another notify is set, and changes nothing", async () => {
    const text = 'notify = ["notify-send", "codex"]\n[t]\nnotify = "not top level"\n';
    await fs.writeFile(config(), text);
    const error = await failure(installHook(request("codex")));
    expect(isOffrunError(error, "conflict")).toBe(true);
    expect(error.message).toContain('already sets notify = ["notify-send", "codex"]');
    expect(error.message).toMatch(/only one notify program.*script/s);
    await expect(fs.readFile(config(), "utf8")).resolves.toBe(text);
    await expect(fs.stat(`${config()}.offrun-backup`)).rejects.toThrow();
  });

  it("a notify only inside a table does not count as the top-level one", async () => {
    await fs.writeFile(config(), '[t]\nnotify = ["x"]\n');
    await installHook(request("codex"));
    await expect(fs.readFile(config(), "utf8")).resolves.toBe(`${notifyLine()}\n[t]\nnotify = ["x"]\n`);
  });
});

describe("Gemini CLI and Grok Build", () => {
  it("Gemini's user settings get AfterAgent and Notification in milliseconds, and come back byte-identical", async () => {
    const file = path.join(home, ".gemini", "settings.json");
    await fs.mkdir(path.dirname(file));
    // What test/helpers/gemini-env.ts writes for a real 0.61.0 run, as the user would have it.
    const original = '{\n  "security": {\n    "auth": {\n      "selectedType": "gemini-api-key"\n    }\n  }\n}\n';
    await fs.writeFile(file, original);
    expect(await installHook(request("gemini"))).toMatchObject({ file, outcome: "installed" });
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as {
      hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>;
    };
    expect(Object.keys(parsed.hooks)).toEqual(["AfterAgent", "Notification"]);
    expect(parsed.hooks.AfterAgent![0]!.hooks[0]).toMatchObject({ timeout: 10_000 });
    expect(parsed.hooks.AfterAgent![0]!.hooks[0]!.command).toContain("hook gemini --offrun-home=");
    expect((await hookStatus(request("gemini"))).present).toBe(true);
    expect((await uninstallHook(request("gemini"))).outcome).toBe("restored");
    expect(await fs.readFile(file)).toEqual(Buffer.from(original));
  });

  it("Grok gets a hooks file of Offrun's own, which uninstall deletes", async () => {
    const file = path.join(home, "hooks", "offrun.json");
    expect(await installHook(request("grok"))).toMatchObject({ file, outcome: "installed" });
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as {
      hooks: Record<string, { hooks: { timeout: number }[] }[]>;
    };
    expect(Object.keys(parsed.hooks)).toEqual(["Stop"]);
    expect(parsed.hooks.Stop![0]!.hooks[0]!.timeout).toBe(5);
    expect((await uninstallHook(request("grok"))).outcome).toBe("deleted");
    await expect(fs.stat(file)).rejects.toThrow();
  });

  it("a harness without hooks is refused with the list of those that have them", async () => {
    const error = await failure(installHook(request("pi")));
    expect(isOffrunError(error, "invalid_input")).toBe(true);
    expect(error.message).toContain("claude, codex, gemini, grok");
  });
});
