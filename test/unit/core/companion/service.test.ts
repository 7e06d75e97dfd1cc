import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  installService,
  launchdPlist,
  serviceOptions,
  systemdUnit,
  uninstallService,
  type ServiceOptions,
} from "../../../../src/core/companion/service.js";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-service-"));
  for (const name of ["home", "tmp", "offrun", "empty-bin"]) await fs.mkdir(path.join(dir, name));
  env = {
    HOME: path.join(dir, "home"),
    TMPDIR: path.join(dir, "tmp"),
    OFFRUN_HOME: path.join(dir, "offrun"),
    // No launchctl or systemctl here: as in a CI container.
    PATH: path.join(dir, "empty-bin"),
  };
  Object.assign(process.env, { HOME: env.HOME, TMPDIR: env.TMPDIR, OFFRUN_HOME: env.OFFRUN_HOME });
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Paths with a space, an `&`, a `%`, a `$` and quotes: each must survive both formats. */
function awkwardOptions(): ServiceOptions {
  const weird = path.join(dir, `My Apps & "Tools" 100% $HOME`);
  return {
    program: path.join(weird, "bin", "offrun"),
    pathEnv: [path.join(weird, "bin"), "/usr/bin", "/bin"].join(":"),
    offrunHome: path.join(weird, "home <x>"),
    logPath: path.join(weird, "home <x>", "companion-service.log"),
  };
}

type Plist = string | number | boolean | Plist[] | { [key: string]: Plist };
interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** A minimal XML reader: throws on unbalanced tags, bare `&` or `<`, unknown entities, or trailing content. */
function parseXml(xml: string): XmlNode {
  const body = xml
    .replace(/^<\?xml[^?]*\?>\s*/, "")
    .replace(/^<!DOCTYPE[^>]*>\s*/, "")
    .replace(/<!--[\s\S]*?-->\s*/g, "");
  const root: XmlNode = { name: "#root", children: [], text: "" };
  const stack = [root];
  const token = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w:-]+="[^"<&]*")*)\s*(\/?)>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let end = 0;
  while ((match = token.exec(body))) {
    end = token.lastIndex;
    const [, closing, name, , selfClosing, text] = match;
    const top = stack[stack.length - 1]!;
    if (text !== undefined) {
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(text) || text.includes(">")) throw new Error(`bad text: ${text}`);
      top.text += text.replace(/&(\w+);/g, (_, entity: string) => ENTITIES[entity]!);
    } else if (closing) {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
    } else {
      const node: XmlNode = { name: name!, children: [], text: "" };
      top.children.push(node);
      if (!selfClosing) stack.push(node);
    }
  }
  if (end !== body.length || stack.length !== 1) throw new Error(`not well-formed at ${end}`);
  expect(root.children).toHaveLength(1);
  return root.children[0]!;
}

/** The plist's value, checking the structure launchd expects: dict children alternate key and value. */
function plistValue(node: XmlNode): Plist {
  switch (node.name) {
    case "string":
      return node.text;
    case "integer":
      expect(node.text).toMatch(/^-?\d+$/);
      return Number(node.text);
    case "true":
      return true;
    case "false":
      return false;
    case "array":
      return node.children.map(plistValue);
    case "dict": {
      const result: Record<string, Plist> = {};
      expect(node.children.length % 2).toBe(0);
      for (let i = 0; i < node.children.length; i += 2) {
        expect(node.children[i]!.name).toBe("key");
        result[node.children[i]!.text] = plistValue(node.children[i + 1]!);
      }
      return result;
    }
    default:
      throw new Error(`not a plist element: <${node.name}>`);
  }
}

function readPlist(xml: string): Record<string, Plist> {
  const root = parseXml(xml);
  expect(root.name).toBe("plist");
  expect(root.children).toHaveLength(1);
  return plistValue(root.children[0]!) as Record<string, Plist>;
}

/** Sections and their key=value lines, values kept raw. */
function readUnit(text: string): Record<string, [string, string][]> {
  const sections: Record<string, [string, string][]> = {};
  let current: [string, string][] | undefined;
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) current = sections[header[1]!] = [];
    else {
      const eq = line.indexOf("=");
      expect(eq).toBeGreaterThan(0);
      current!.push([line.slice(0, eq), line.slice(eq + 1)]);
    }
  }
  return sections;
}

function hasBinary(name: string): boolean {
  try {
    execFileSync("sh", ["-c", 'command -v "$1"', "sh", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

test("the launchd plist is a well-formed plist with the arguments, PATH, KeepAlive and log paths", () => {
  const options = awkwardOptions();
  const xml = launchdPlist(options);
  expect(xml).toContain("&amp;");
  // The reader must itself refuse what a plist parser refuses, or it proves nothing.
  expect(() => parseXml("<plist><string>a & b</string></plist>")).toThrow();
  expect(() => parseXml("<plist><string>a</plist>")).toThrow();
  const plist = readPlist(xml);
  expect(plist.Label).toBe("dev.offrun.companion");
  expect(plist.ProgramArguments).toEqual([options.program, "companion", "run"]);
  // OFFRUN_COMPANION_SERVICE marks the service's companion: `companion install` hands over to it.
  expect(plist.EnvironmentVariables).toEqual({
    PATH: options.pathEnv,
    OFFRUN_COMPANION_SERVICE: "1",
    OFFRUN_HOME: options.offrunHome,
  });
  expect(plist.RunAtLoad).toBe(true);
  expect(plist.KeepAlive).toEqual({ SuccessfulExit: false });
  expect(plist.ThrottleInterval).toBeGreaterThan(0);
  expect(plist.StandardOutPath).toBe(options.logPath);
  expect(plist.StandardErrorPath).toBe(options.logPath);
  if (hasBinary("plutil")) execFileSync("plutil", ["-lint", "-"], { input: xml });
  // Otherwise (Linux) the reader above is the check.
});

test("the plist leaves OFFRUN_HOME out when the shell did not set it", () => {
  const options = serviceOptions({
    env: { HOME: env.HOME, PATH: "/opt/node/bin:/usr/bin" },
    program: "/x/.offrun/bin/offrun",
  });
  expect(options.pathEnv).toBe("/opt/node/bin:/usr/bin");
  expect(options.logPath).toBe(path.join(env.HOME!, ".offrun", "companion-service.log"));
  expect(readPlist(launchdPlist(options)).EnvironmentVariables).toEqual({
    PATH: "/opt/node/bin:/usr/bin",
    OFFRUN_COMPANION_SERVICE: "1",
  });
});

test("the systemd unit has its sections, quoted arguments, restart policy and logs", () => {
  const options = awkwardOptions();
  const unit = readUnit(systemdUnit(options));
  expect(Object.keys(unit)).toEqual(["Unit", "Service", "Install"]);
  const service = Object.fromEntries(unit.Service!.filter(([key]) => key !== "Environment"));
  const quote = (s: string) => `"${s.replace(/%/g, "%%").replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  expect(service.ExecStart).toBe([options.program.replace(/\$/g, "$$$$"), "companion", "run"].map(quote).join(" "));
  expect(unit.Service!.filter(([key]) => key === "Environment").map(([, value]) => value)).toEqual([
    quote(`PATH=${options.pathEnv}`),
    quote("OFFRUN_COMPANION_SERVICE=1"),
    quote(`OFFRUN_HOME=${options.offrunHome}`),
  ]);
  expect(service.Restart).toBe("on-failure");
  expect(Number(service.RestartSec)).toBeGreaterThan(0);
  expect(service.StandardOutput).toBe(`append:${options.logPath.replace(/%/g, "%%")}`);
  expect(service.StandardError).toBe(service.StandardOutput);
  expect(unit.Install).toEqual([["WantedBy", "default.target"]]);
});

test("systemd-analyze accepts the unit, paths with spaces and all", async () => {
  // Skipped where systemd is not installed (macOS): the structure test above still runs.
  if (!hasBinary("systemd-analyze")) return;
  const options = { ...awkwardOptions(), program: path.resolve("bin", "offrun.js") };
  const file = path.join(dir, "offrun-companion.service");
  await fs.writeFile(file, systemdUnit(options));
  const result = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
  expect(result.stderr).not.toMatch(/ignoring|unknown|invalid|not executable/i);
  expect(result.status).toBe(0);
});

test("a control character in a path is refused, not written into the file", () => {
  const options = { ...awkwardOptions(), logPath: "/tmp/a\nb" };
  expect(() => systemdUnit(options)).toThrow(/control character/);
  expect(() => launchdPlist(options)).toThrow(/control character/);
});

test("install on Linux without systemctl writes the unit and says which commands to run", async () => {
  const xdg = path.join(dir, "xdg config");
  const result = await installService({
    platform: "linux",
    options: awkwardOptions(),
    env: { ...env, XDG_CONFIG_HOME: xdg },
  });
  expect(result.file).toBe(path.join(xdg, "systemd", "user", "offrun-companion.service"));
  expect(await fs.readFile(result.file, "utf8")).toBe(systemdUnit(awkwardOptions()));
  expect(result).toMatchObject({ changed: true, managed: false });
  expect(result.steps[0]).toMatchObject({ ok: false, missing: true, detail: "systemctl not found" });
  expect(result.manual).toEqual([
    "systemctl --user daemon-reload && systemctl --user enable --now offrun-companion.service",
  ]);
  await fs.stat(path.dirname(awkwardOptions().logPath));
});

test("uninstall removes the unit and a second uninstall finds nothing to do", async () => {
  const installed = await installService({ platform: "linux", options: awkwardOptions(), env });
  expect(installed.file).toBe(path.join(env.HOME!, ".config", "systemd", "user", "offrun-companion.service"));
  const first = await uninstallService({ platform: "linux", env });
  expect(first).toMatchObject({ changed: true, managed: false });
  expect(first.manual).toEqual(["systemctl --user stop offrun-companion.service && systemctl --user daemon-reload"]);
  await expect(fs.stat(installed.file)).rejects.toThrow();
  const second = await uninstallService({ platform: "linux", env });
  expect(second).toMatchObject({ changed: false, managed: false, steps: [] });
});

test("with a working systemctl, install and uninstall run the expected commands", async () => {
  const bin = path.join(dir, "stub-bin");
  const log = path.join(dir, "systemctl.log");
  await fs.mkdir(bin);
  await fs.writeFile(path.join(bin, "systemctl"), `#!/bin/sh\necho "$*" >> '${log}'\n`, { mode: 0o755 });
  const stubEnv = { ...env, PATH: `${bin}:/usr/bin:/bin` };
  const installed = await installService({ platform: "linux", options: awkwardOptions(), env: stubEnv });
  expect(installed).toMatchObject({ managed: true, manual: undefined });
  await uninstallService({ platform: "linux", env: stubEnv });
  expect((await fs.readFile(log, "utf8")).trim().split("\n")).toEqual([
    "--user daemon-reload",
    "--user enable --now offrun-companion.service",
    "--user disable --now offrun-companion.service",
    "--user daemon-reload",
  ]);
});

test("on macOS a failing launchctl leaves the plist written and names the bootstrap command", async () => {
  const bin = path.join(dir, "stub-bin");
  await fs.mkdir(bin);
  await fs.writeFile(path.join(bin, "launchctl"), `#!/bin/sh\necho "Bootstrap failed: 5" >&2\nexit 5\n`, {
    mode: 0o755,
  });
  const result = await installService({
    platform: "darwin",
    options: awkwardOptions(),
    env: { ...env, PATH: bin },
    uid: 501,
  });
  const file = path.join(env.HOME!, "Library", "LaunchAgents", "dev.offrun.companion.plist");
  expect(result).toMatchObject({ file, changed: true, managed: false });
  readPlist(await fs.readFile(file, "utf8"));
  expect(result.steps.map((step) => step.ok)).toEqual([false, false]);
  expect(result.steps[1]!.detail).toContain("Bootstrap failed: 5");
  expect(result.manual).toEqual([`launchctl bootstrap gui/501 ${file}`]);
  await uninstallService({ platform: "darwin", env: { ...env, PATH: bin }, uid: 501 });
  await expect(fs.stat(file)).rejects.toThrow();
});
