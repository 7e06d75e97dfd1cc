import { checkFindings, touchedLines } from "../../../../src/core/review/findings.js";
import { extractReview } from "../../../../src/core/review/output.js";

const PATCH = [
  "diff --git a/src/a.ts b/src/a.ts",
  "index 1111111..2222222 100644",
  "--- a/src/a.ts",
  "+++ b/src/a.ts",
  "@@ -1,4 +1,4 @@",
  " one",
  "-two",
  "+TWO",
  " three",
  " four",
  "@@ -10,3 +10,2 @@",
  " ten",
  "-eleven",
  " twelve",
  "diff --git a/gone.txt b/gone.txt",
  "deleted file mode 100644",
  "--- a/gone.txt",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-bye",
  "diff --git a/logo.png b/logo.png",
  "Binary files a/logo.png and b/logo.png differ",
  "",
].join("\n");

test("a finding is on the diff only where the diff adds or removes lines", () => {
  const touched = touchedLines(PATCH, ["src/a.ts", "gone.txt", "logo.png"]);
  const finding = (file: string, line: number | null) => ({ file, line, severity: "minor" as const, message: "m" });
  const checked = checkFindings(
    [
      finding("src/a.ts", 2),
      finding("./src/a.ts", 3),
      finding("src/a.ts", 11),
      finding("src/a.ts", 30),
      finding("src/a.ts", null),
      finding("gone.txt", 1),
      finding("logo.png", 7),
      finding("README.md", 1),
      finding("/scratch/src/a.ts", 2),
    ],
    touched,
    ["/scratch"],
  );
  expect(checked.map((f) => [f.file, f.line, f.onDiff])).toEqual([
    ["src/a.ts", 2, true],
    ["src/a.ts", 3, false],
    ["src/a.ts", 11, true], // where "eleven" was removed
    ["src/a.ts", 30, false],
    ["src/a.ts", undefined, true],
    ["gone.txt", 1, true],
    ["logo.png", 7, true],
    ["README.md", 1, false],
    ["src/a.ts", 2, true],
  ]);
});

test("a review is read from bare JSON, a fenced block, or JSON inside prose", () => {
  const json = '{"verdict":"approve","summary":"fine","findings":[]}';
  for (const text of [json, `Here it is:\n\`\`\`json\n${json}\n\`\`\``, `Review: ${json} -- done`]) {
    expect(extractReview(text)).toEqual({ ok: true, review: { verdict: "approve", summary: "fine", findings: [] } });
  }
});

test("text that is not a review is refused with the reason, never read as an approval", () => {
  expect(extractReview("LGTM, approve")).toEqual({ ok: false, problem: "The reviewer's final answer is not JSON." });
  const wrong = extractReview('{"verdict":"ship it","summary":"x","findings":[]}');
  expect(wrong.ok).toBe(false);
  expect(wrong.ok ? "" : wrong.problem).toContain("verdict");
  expect(extractReview("").ok).toBe(false);
});
