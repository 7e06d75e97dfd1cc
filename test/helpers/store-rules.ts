import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { UiNode } from "./raycast-api-render.js";
import { Keyboard } from "./raycast-api.js";

/**
 * Raycast's "Prepare an Extension for Store" rules for what a command shows
 * (developers.raycast.com/basics/prepare-an-extension-for-store), as checks that return the
 * breaches they find, one sentence each: checked on rendered views (test/helpers/raycast-api-render.ts)
 * and on the commands' sources, which also reach the branches a render does not take.
 */

type Shortcut = { modifiers: string[]; key: string };

/** A shortcut as macOS binds it, "cmd+shift+c", from either form Raycast takes (one, or one per platform). */
export function macKey(shortcut: unknown): string | undefined {
  if (!shortcut || typeof shortcut !== "object") return undefined;
  const mac = "macOS" in shortcut ? (shortcut as { macOS: Shortcut }).macOS : (shortcut as Shortcut);
  if (!mac || typeof mac.key !== "string") return undefined;
  return [...[...mac.modifiers].sort(), mac.key].join("+");
}

/**
 * The keys Raycast gives a panel's first two actions by itself ("ActionPanel": "In List, Grid, and
 * Detail, this is ↵ for the primary and ⌘ ↵ for the secondary action. In Form it's ⌘ ↵ for the
 * primary and ⌘ ⇧ ↵ for the secondary").
 */
const IMPLICIT_KEYS = { list: ["return", "cmd+return"], form: ["cmd+return", "cmd+shift+return"] } as const;

const isAction = (node: UiNode) => node.type === "Action" || node.type.startsWith("Action.");

/** The items of one panel in order: actions and submenus, through sections; a submenu's items are a panel of their own. */
function panelItems(nodes: UiNode[]): UiNode[] {
  return nodes.flatMap((node) => {
    if (isAction(node) || node.type === "ActionPanel.Submenu") return [node];
    if (node.type === "ActionPanel.Section") return panelItems(node.children);
    return [];
  });
}

interface Panel {
  /** Where the panel is, for the messages. */
  where: string;
  kind: "list" | "form" | "submenu";
  items: UiNode[];
}

/** Every action panel of a rendered view, the submenus' own panels included. */
function panelsOf(view: UiNode[]): Panel[] {
  const panels: Panel[] = [];
  const walk = (nodes: UiNode[], inForm: boolean, where: string) => {
    for (const node of nodes) {
      const here = node.props.title ? `${where} > ${String(node.props.title)}` : where;
      const form = inForm || node.type === "Form";
      if (node.type === "ActionPanel") {
        panels.push({ where: here, kind: form ? "form" : "list", items: panelItems(node.children) });
      }
      if (node.type === "ActionPanel.Submenu") {
        panels.push({ where: here, kind: "submenu", items: panelItems(node.children) });
      }
      walk(node.children, form, here);
      for (const slot of Object.values(node.slots)) walk(slot, form, here);
    }
  };
  walk(view, false, view[0]?.type ?? "view");
  return panels;
}

function allNodes(view: UiNode[]): UiNode[] {
  const found: UiNode[] = [];
  const walk = (nodes: UiNode[]) => {
    for (const node of nodes) {
      found.push(node);
      walk(node.children);
      for (const slot of Object.values(node.slots)) walk(slot);
    }
  };
  walk(view);
  return found;
}

const REMOVE = macKey(Keyboard.Shortcut.Common.Remove);

/** The store rules a rendered view breaks. */
export function viewBreaches(view: UiNode[]): string[] {
  const breaches: string[] = [];
  for (const node of allNodes(view)) {
    const title = String(node.props.title ?? node.props.id ?? "");
    if ((node.type === "List" || node.type === "Grid") && !node.props.searchBarPlaceholder)
      breaches.push(
        `${node.type}${node.props.navigationTitle ? ` "${String(node.props.navigationTitle)}"` : ""} has no searchBarPlaceholder`,
      );
    if ((node.type === "Form.TextArea" || node.type === "Form.TextField") && !node.props.placeholder)
      breaches.push(`${node.type} ${title} has no placeholder`);
    if (node.type === "ActionPanel.Submenu" && !title.endsWith("…"))
      breaches.push(`submenu "${title}" does not end with "…"`);
    if (isAction(node) && node.props.style === "destructive" && macKey(node.props.shortcut) !== REMOVE)
      breaches.push(`destructive action "${title}" does not use Keyboard.Shortcut.Common.Remove`);
  }
  for (const panel of panelsOf(view)) {
    const first = panel.items[0];
    if (panel.kind === "form" && first && first.type !== "Action.SubmitForm")
      breaches.push(`the first action of the form at ${panel.where} is "${String(first.props.title)}", not its Submit`);
    const keys = new Map<string, string>();
    panel.items.forEach((item, index) => {
      const implicit = panel.kind === "submenu" ? undefined : IMPLICIT_KEYS[panel.kind][index];
      const own = new Set([implicit, macKey(item.props.shortcut)].filter((k) => k !== undefined));
      for (const key of own) {
        const other = keys.get(key);
        if (other !== undefined)
          breaches.push(`"${String(item.props.title)}" and "${other}" share ${key} in the panel at ${panel.where}`);
        else keys.set(key, String(item.props.title));
      }
    });
  }
  return breaches;
}

// --- the sources ---------------------------------------------------------------------------

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".tsx") ? [full] : [];
  });
}

function attribute(element: ts.JsxOpeningLikeElement, name: string): ts.JsxAttribute | undefined {
  return element.attributes.properties.find(
    (p): p is ts.JsxAttribute => ts.isJsxAttribute(p) && p.name.getText() === name,
  );
}

/** The attribute's value as written: a string literal's text, or an expression's source. */
function valueOf(attr: ts.JsxAttribute | undefined): string | undefined {
  const init = attr?.initializer;
  if (!init) return undefined;
  if (ts.isStringLiteral(init)) return init.text;
  if (ts.isJsxExpression(init) && init.expression) {
    const expression = init.expression;
    return ts.isStringLiteralLike(expression) ? expression.text : expression.getText();
  }
  return undefined;
}

/** The store rules the JSX of one source text breaks (every branch, rendered or not). */
export function sourceBreaches(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const breaches: string[] = [];
  const at = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) {
      const tag = node.tagName.getText();
      const title = valueOf(attribute(node, "title"));
      if (tag === "ActionPanel.Submenu" && !title?.endsWith("…"))
        breaches.push(`${at(node)}: submenu ${title ?? "(no literal title)"} does not end with "…"`);
      if (
        valueOf(attribute(node, "style")) === "Action.Style.Destructive" &&
        valueOf(attribute(node, "shortcut")) !== "Keyboard.Shortcut.Common.Remove"
      )
        breaches.push(`${at(node)}: destructive ${title ?? tag} does not use Keyboard.Shortcut.Common.Remove`);
      if ((tag === "List" || tag === "Grid") && !attribute(node, "searchBarPlaceholder"))
        breaches.push(`${at(node)}: <${tag}> has no searchBarPlaceholder`);
      if ((tag === "Form.TextArea" || tag === "Form.TextField") && !attribute(node, "placeholder"))
        breaches.push(`${at(node)}: <${tag}> ${title ?? ""} has no placeholder`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return breaches;
}

/** The breaches in every .tsx file under `dir`. */
export function sourceTreeBreaches(dir: string): string[] {
  return sourceFiles(dir).flatMap((file) =>
    sourceBreaches(path.relative(path.dirname(dir), file), fs.readFileSync(file, "utf8")),
  );
}
