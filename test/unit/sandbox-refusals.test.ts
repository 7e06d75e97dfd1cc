import fs from "node:fs/promises";
import path from "node:path";
import { RefusalWatch, writesRefusedIn } from "../../src/core/sandbox/refusals.js";

const home = "/home/ada";

test("EROFS as Node, coreutils and a shell word it names the refused path", () => {
  expect(writesRefusedIn("Error: EROFS: read-only file system, open '/etc/hosts'")).toEqual(["/etc/hosts"]);
  expect(writesRefusedIn("touch: cannot touch '/tmp/x': Read-only file system")).toEqual(["/tmp/x"]);
  expect(writesRefusedIn("bash: /home/ada/.bashrc: Read-only file system")).toEqual(["/home/ada/.bashrc"]);
  expect(writesRefusedIn("all good")).toEqual([]);
});

test("a tool call that names a protected path is a read refusal, ~ and $HOME spelled out, once a turn", async () => {
  const watch = new RefusalWatch(path.join(process.env.TMPDIR!, "none.jsonl"), [`${home}/.ssh`, `${home}/.aws`], home);
  watch.inspect({ type: "tool_call", id: "t1", name: "Bash", input: { command: "cat ~/.ssh/id_ed25519" } });
  expect(watch.inspect({ type: "tool_result", id: "t1", output: "No such file", isError: true })).toEqual([
    { type: "sandbox_refusal", kind: "read", target: `${home}/.ssh/id_ed25519`, toolId: "t1" },
  ]);
  watch.inspect({
    type: "tool_call",
    id: "t2",
    name: "Bash",
    input: { command: "cat ~/.ssh/id_ed25519 $HOME/.aws/credentials ~/.sshfs" },
  });
  // The key again is not news; the AWS file is; ~/.sshfs is not ~/.ssh.
  expect(watch.inspect({ type: "tool_result", id: "t2", output: "", isError: true })).toEqual([
    { type: "sandbox_refusal", kind: "read", target: `${home}/.aws/credentials`, toolId: "t2" },
  ]);
});

test("the launcher's lines become network and file refusals; a torn last line waits for its end", async () => {
  const file = path.join(process.env.TMPDIR!, "refusals.jsonl");
  const watch = new RefusalWatch(file, [], home);
  await fs.writeFile(
    file,
    [
      JSON.stringify({ line: "deny network-outbound evil.example:443 (not allowed)" }),
      "not json",
      JSON.stringify({ line: "deny(1) file-write-create /Users/ada/.zshrc" }),
      '{"line": "deny network-outbound late',
    ].join("\n"),
  );
  expect(watch.inspect({ type: "turn_end", outcome: "completed" })).toEqual([
    { type: "sandbox_refusal", kind: "network", target: "evil.example:443" },
    { type: "sandbox_refusal", kind: "write", target: "/Users/ada/.zshrc" },
  ]);
  await fs.appendFile(file, '.example:80 (x)"}\n');
  expect(watch.inspect({ type: "turn_end", outcome: "completed" })).toEqual([
    { type: "sandbox_refusal", kind: "network", target: "late.example:80" },
  ]);
});
