import type { UiNode } from "../helpers/raycast-api-render.js";
import { LIST_WITH_DETAIL, ROW_CHARS_BESIDE_DETAIL, WINDOW, rowChars } from "../helpers/row-width.js";
import { titleCaseBreaches, usSpellingBreaches } from "../helpers/title-case.js";
import { SCREENS } from "../screens/catalog.js";
import { drawScreen } from "../screens/draw.js";
import { buildScene, SCENE, type Scene } from "../screens/scene.js";

// `npm run screens` draws these screens; here each is checked for what Raycast has room for and for
// the Store's US English and Apple title case, over the same state (test/screens/scene.ts).

let scene: Scene;
const drawn = new Map<string, { view: UiNode[]; html: string }>();

beforeAll(async () => {
  scene = await buildScene();
  for (const spec of SCREENS) {
    const { screen, html } = await drawScreen(spec, scene);
    drawn.set(spec.name, { view: screen.top, html });
    screen.unmount();
  }
}, 240_000);
afterAll(async () => {
  await scene?.cleanup();
});

function walk(nodes: UiNode[], visit: (node: UiNode, parents: UiNode[]) => void, parents: UiNode[] = []): void {
  for (const node of nodes) {
    visit(node, parents);
    walk(node.children, visit, [...parents, node]);
    for (const slot of Object.values(node.slots)) walk(slot, visit, [...parents, node]);
  }
}

const names = SCREENS.map((s) => s.name);

test.each(names)("%s: no row beside a detail pane shows more than Raycast has room for", (name) => {
  const long: string[] = [];
  walk(drawn.get(name)!.view, (node, parents) => {
    if (node.type !== "List.Item") return;
    const list = parents.findLast((p) => p.type === "List");
    if (list?.props.isShowingDetail !== true) return;
    const chars = rowChars(node.props);
    const accessories = (node.props.accessories as unknown[] | undefined) ?? [];
    if (chars > ROW_CHARS_BESIDE_DETAIL) long.push(`"${String(node.props.title)}" is ${chars} characters`);
    if (accessories.length > 1) long.push(`"${String(node.props.title)}" has ${accessories.length} accessories`);
  });
  expect(long).toEqual([]);
});

test("the menu's own items fit in 40 characters, title and subtitle together", () => {
  const long: string[] = [];
  walk(drawn.get("menu-bar")!.view, (node, parents) => {
    if (node.type !== "MenuBarExtra.Item" || parents.some((p) => p.type === "MenuBarExtra.Submenu")) return;
    const shown = [node.props.title, node.props.subtitle].filter((t) => t !== undefined).join(" ");
    if ([...shown].length > 40) long.push(shown);
  });
  expect(long).toEqual([]);
  const needsYou = JSON.stringify(drawn.get("menu-bar")!.view);
  expect(needsYou).toContain(SCENE.waiting);
});

/** Titles that are Offrun's words (not the user's data: an agent's name, a login, a branch). */
const OUR_TITLES =
  /^(Action(\..*)?|ActionPanel\.(Submenu|Section)|List\.EmptyView|List\.Section|MenuBarExtra\.Section|Metadata\.Label|Form\.(TextField|TextArea|Dropdown|Checkbox|FilePicker|TagPicker|DatePicker|PasswordField))$/;
/** Words of the scene's data that a title of ours carries ("Always Allow Bash(npm install *)", "Changes of upload"). */
const DATA = [SCENE.project, SCENE.host, "Claude Code", "Bash(npm install *)"];

test.each(names)("%s: every title is US English in Apple title case", (name) => {
  const breaches: string[] = [];
  walk(drawn.get(name)!.view, (node, parents) => {
    const title = node.props.title;
    // A submenu's actions are its values (Switch Login…'s logins with their quota, Hand Off…'s CLIs).
    const isChoice = parents.some((p) => p.type === "ActionPanel.Submenu");
    if (typeof title === "string" && OUR_TITLES.test(node.type) && !isChoice) {
      const ours = DATA.reduce((text, value) => text.replaceAll(value, "Data"), title);
      breaches.push(...titleCaseBreaches(ours).map((b) => `${node.type} ${b}`));
    }
    for (const prop of ["title", "subtitle", "text", "markdown", "description", "tooltip", "placeholder"]) {
      const value = node.props[prop];
      if (typeof value === "string") breaches.push(...usSpellingBreaches(value));
    }
  });
  expect(breaches).toEqual([]);
});

test("the pages are Raycast's window, with the list and detail split 300/450", () => {
  const page = drawn.get("agents-needs-you")!.html;
  expect(page).toContain(`width: ${WINDOW.width}px; height: ${WINDOW.height}px`);
  expect(page).toContain(`.split .list { flex: none; width: ${LIST_WITH_DETAIL.list}px; }`);
  expect(page).toContain('class="main split"');
  expect(page).toContain("Waiting for You");
});
