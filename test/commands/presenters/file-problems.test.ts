import { viewFileProblems } from "../../../src/commands/presenters/file-problems.js";

// A record the Agents view reads itself and the companion also kept is one row, damaged files come
// before repaired ones, and a control character in a path is spelled out, not obeyed.
test("one row a file, the damaged first, the text made visible", () => {
  const rows = viewFileProblems([
    { file: "/h/.offrun/projects.json", message: "rebuilt", repaired: true },
    { file: "/p/.offrun/agents/x.json", message: "x.json is empty" },
    { file: "/p/.offrun/agents/x.json", message: "x.json is empty (kept)" },
    { file: "/srv/a\u001b[2J.json", host: "devbox", message: "cut short" },
  ]);
  expect(rows.map((r) => [r.title, r.state])).toEqual([
    ["x.json", "Damaged"],
    ["a\\x1b[2J.json on devbox", "Damaged"],
    ["projects.json", "Repaired"],
  ]);
  expect(rows[0]!.message).toBe("x.json is empty (kept)");
});
