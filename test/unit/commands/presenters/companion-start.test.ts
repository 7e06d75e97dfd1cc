import fsSync from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { loginEnvironment } from "../../../../src/commands/presenters/companion-start.js";

// Start Companion gives the companion the user's login environment, not the GUI app's: the PATH a
// terminal has (where the agent CLIs are) comes from the login shell's profile.

const home = () => path.join(process.env.TMPDIR!, "login-home");

test("reads the login shell's environment, past whatever the profile prints", async () => {
  await fs.mkdir(home(), { recursive: true });
  await fs.writeFile(
    path.join(home(), ".bash_profile"),
    'echo "Welcome back"\nexport PATH="/opt/agents/bin:$PATH"\nexport OFFRUN_PROFILE_MARK="set by the profile"\n',
  );
  const env = await loginEnvironment({ SHELL: "/bin/bash", HOME: home(), PATH: "/usr/bin:/bin" }, process.execPath);
  expect(env?.OFFRUN_PROFILE_MARK).toBe("set by the profile");
  expect(env?.PATH?.split(":")[0]).toBe("/opt/agents/bin");
});

test("a profile that hangs or a shell that is missing gives undefined (the face's own environment is kept)", async () => {
  await fs.mkdir(home(), { recursive: true });
  await fs.writeFile(path.join(home(), ".bash_profile"), "sleep 30\n");
  const started = Date.now();
  expect(
    await loginEnvironment({ SHELL: "/bin/bash", HOME: home(), PATH: "/usr/bin:/bin" }, process.execPath, 1_000),
  ).toBeUndefined();
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(await loginEnvironment({ SHELL: "/no/such/shell", HOME: home() }, process.execPath)).toBeUndefined();
});

// fish (a common login shell on macOS) has no $0/$1 in `-c`: the arguments are $argv there.
const fish = ["/usr/bin/fish", "/opt/homebrew/bin/fish", "/usr/local/bin/fish"].find((file) => fsSync.existsSync(file));
(fish ? test : test.skip)(
  `reads a fish login shell's environment too${fish ? "" : " (skipped: fish is not installed)"}`,
  async () => {
    await fs.mkdir(path.join(home(), ".config", "fish"), { recursive: true });
    await fs.writeFile(
      path.join(home(), ".config", "fish", "config.fish"),
      'echo "hello from fish"\nset -gx OFFRUN_FISH_MARK "set by fish"\n',
    );
    const env = await loginEnvironment({ SHELL: fish!, HOME: home(), PATH: "/usr/bin:/bin" }, process.execPath);
    expect(env?.OFFRUN_FISH_MARK).toBe("set by fish");
  },
);
