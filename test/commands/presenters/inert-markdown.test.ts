import { inertMarkdown } from "../../../src/commands/presenters/inert-markdown.js";

test("an image is shown as its text, raw <img> too; links stay links", () => {
  expect(inertMarkdown("see ![pixel](http://127.0.0.1:9/p?d=secret) and [docs](https://example.com)")).toBe(
    "see !\\[pixel](http://127.0.0.1:9/p?d=secret) and [docs](https://example.com)",
  );
  expect(inertMarkdown('x <IMG src="https://evil.example/t.gif"> y')).toBe(
    'x &lt;img src="https://evil.example/t.gif"> y',
  );
  expect(inertMarkdown("![a][ref]\n\n[ref]: https://evil.example/a.png")).toBe(
    "!\\[a][ref]\n\n[ref]: https://evil.example/a.png",
  );
});

test("code is left as it is: an image there is text already", () => {
  const fenced = "```md\n![kept](https://example.com/a.png)\n```\n![not](https://example.com/b.png)";
  expect(inertMarkdown(fenced)).toBe(
    "```md\n![kept](https://example.com/a.png)\n```\n!\\[not](https://example.com/b.png)",
  );
  expect(inertMarkdown("`![span](x)` then ![img](y)")).toBe("`![span](x)` then !\\[img](y)");
  expect(inertMarkdown("plain text")).toBe("plain text");
});
