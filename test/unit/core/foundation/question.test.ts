import { trailingQuestion } from "../../../../src/core/foundation/question.js";

test("a reply whose last paragraph ends with a question mark asks the user", () => {
  expect(trailingQuestion("Done.\n\nShould I also update the README?")).toBe("Should I also update the README?");
  expect(trailingQuestion("Which one do you want: **A or B?**")).toBe("Which one do you want: **A or B?**");
});

test("a question earlier in the reply, or inside code, does not", () => {
  expect(trailingQuestion("Why did it fail? The lock was stale. Fixed it.")).toBeUndefined();
  expect(trailingQuestion("Here:\n\n```js\nconst ok = a ? b : c?\n```")).toBeUndefined();
  expect(trailingQuestion("")).toBeUndefined();
});

test("a very long final paragraph is cut to its end", () => {
  const question = trailingQuestion(`${"word ".repeat(200)}ok?`)!;
  expect(question.length).toBe(500);
  expect(question.endsWith("ok?")).toBe(true);
});
