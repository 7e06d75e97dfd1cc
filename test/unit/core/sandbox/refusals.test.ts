import { RefusalWatch, writesRefusedIn } from "../../../../src/core/sandbox/refusals.js";

const home = "/home/ada";

test("EROFS as Node, coreutils and a shell word it names the refused path", () => {
  expect(writesRefusedIn("Error: EROFS: read-only file system, open '/etc/hosts'")).toEqual(["/etc/hosts"]);
  expect(writesRefusedIn("touch: cannot touch '/tmp/x': Read-only file system")).toEqual(["/tmp/x"]);
  expect(writesRefusedIn("bash: /home/ada/.bashrc: Read-only file system")).toEqual(["/home/ada/.bashrc"]);
  expect(writesRefusedIn("all good")).toEqual([]);
});

test("a tool call that names a protected path is a read refusal, ~ and $HOME spelled out, once a turn", async () => {
  const watch = new RefusalWatch(() => [], [`${home}/.ssh`, `${home}/.aws`], home);
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

test("the runtime's lines become network and file refusals, each once", () => {
  const batches = [
    [
      "deny network-outbound evil.example:443 (not allowed)",
      "something else",
      "deny(1) file-write-create /Users/ada/.zshrc",
    ],
    ["deny network-outbound evil.example:443 (not allowed)", "deny network-outbound late.example:80 (x)"],
  ];
  const watch = new RefusalWatch(() => batches.shift() ?? [], [], home);
  expect(watch.inspect({ type: "turn_end", outcome: "completed" })).toEqual([
    { type: "sandbox_refusal", kind: "network", target: "evil.example:443" },
    { type: "sandbox_refusal", kind: "write", target: "/Users/ada/.zshrc" },
  ]);
  expect(watch.inspect({ type: "turn_end", outcome: "completed" })).toEqual([
    { type: "sandbox_refusal", kind: "network", target: "late.example:80" },
  ]);
});
