import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  opencodeConfigFolder,
  opencodeConfiguration,
  withoutComments,
} from "../../../../src/harnesses/opencode/config-hosts.js";

// A gateway or local model server set in a login's OpenCode config is opened in the
// sandbox, with the setting it came from; before, none was, and a sandboxed turn retried a
// refused connection until it was killed.

let home: string;
beforeEach(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-oc-hosts-"));
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

const provider = (baseURL: string, apiKey?: string) => ({
  provider: { gateway: { npm: "@ai-sdk/openai-compatible", options: { baseURL, ...(apiKey ? { apiKey } : {}) } } },
});

test("the Default login's config folder is XDG_CONFIG_HOME's, an added login's is inside its home", () => {
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "cfg") };
  expect(opencodeConfigFolder(path.join(home, ".local", "share"), env)).toBe(path.join(home, "cfg", "opencode"));
  const added = path.join(home, "logins", "work");
  expect(opencodeConfigFolder(added, env)).toBe(path.join(added, "config", "opencode"));
});

test("hosts and key variables come from opencode.jsonc, OPENCODE_CONFIG and OPENCODE_CONFIG_CONTENT", async () => {
  const folder = path.join(home, ".config", "opencode");
  await fs.mkdir(folder, { recursive: true });
  const jsonc = `{
    // the team's gateway
    "provider": { "gw": { "options": { "baseURL": "https://gw.example.com:8443/v1", "apiKey": "{env:GW_KEY}", }, }, },
    /* trailing commas, as OpenCode allows */
  }`;
  await fs.writeFile(path.join(folder, "opencode.jsonc"), jsonc);
  const extra = path.join(home, "extra.json");
  await fs.writeFile(extra, JSON.stringify(provider("http://127.0.0.1:4000/v1")));
  const env = {
    HOME: home,
    OPENCODE_CONFIG: extra,
    OPENCODE_CONFIG_CONTENT: JSON.stringify(provider("https://other.example.org/v1", "sk-literal-not-a-name")),
  };
  const found = await opencodeConfiguration(path.join(home, ".local", "share"), env);
  expect(found.hosts).toEqual([
    { host: "gw.example.com:8443", setting: `${path.join(folder, "opencode.jsonc")} provider.gw.options.baseURL` },
    { host: "127.0.0.1:4000", setting: `${extra} provider.gateway.options.baseURL` },
    { host: "other.example.org", setting: "OPENCODE_CONFIG_CONTENT provider.gateway.options.baseURL" },
  ]);
  // A literal key is never taken for a variable's name.
  expect(found.env).toEqual(["GW_KEY"]);
});

test("a broken or foreign config opens nothing", async () => {
  const folder = path.join(home, ".config", "opencode");
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, "opencode.json"), "{ not json");
  await fs.writeFile(path.join(folder, "config.json"), JSON.stringify({ provider: "nope" }));
  expect(await opencodeConfiguration(path.join(home, ".local", "share"), { HOME: home })).toEqual({
    hosts: [],
    env: [],
  });
});

test("comments inside strings are kept", () => {
  expect(JSON.parse(withoutComments('{"url": "http://a//b", "x": "/* y */"} // z'))).toEqual({
    url: "http://a//b",
    x: "/* y */",
  });
});
