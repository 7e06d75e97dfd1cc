import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import * as own from "../../src/commands/lib/shortcuts.js";
import { Keyboard } from "./raycast-api.js";

/**
 * Every keyboard shortcut the commands' sources give an action (every branch, rendered or not), read
 * from the JSX: a literal, one of Raycast's Keyboard.Shortcut.Common, or a constant of
 * src/commands/lib/shortcuts.ts. Raycast's lint sees only literals; this sees them all.
 */

type Key = { modifiers: string[]; key: string };
type Both = { macOS: Key; windows: Key };

/** "cmd+shift+d": modifiers sorted, then the key. */
export function keyName(shortcut: Key): string {
  return [...[...shortcut.modifiers].sort(), shortcut.key].join("+");
}

/** A one-platform shortcut as Raycast binds it on Windows: ⌘ reads as Ctrl, ⌥ as Alt. */
function onWindows(shortcut: Key): Key {
  return { modifiers: shortcut.modifiers.map((m) => ({ cmd: "ctrl", opt: "alt" })[m] ?? m), key: shortcut.key };
}

/** The keys a shortcut binds on each platform. */
export function bothPlatforms(shortcut: Key | Both): { macOS: string; windows: string } {
  return "macOS" in shortcut
    ? { macOS: keyName(shortcut.macOS), windows: keyName(shortcut.windows) }
    : { macOS: keyName(shortcut), windows: keyName(onWindows(shortcut)) };
}

export interface FoundShortcut {
  /** file:line */
  at: string;
  /** The action's literal title, or its tag. */
  title: string;
  /** As written: `Keyboard.Shortcut.Common.Refresh`, `STOP_SHORTCUT`, `{ modifiers: ["cmd"], key: "d" }`. */
  written: string;
  /** Keyboard.Shortcut.Common.<name>, when it is one. */
  common?: string;
  macOS: string;
  windows: string;
  /** The enclosing ActionPanel (or MenuBarExtra) element, "file:line"; none for an action kept in a variable. */
  panel?: string;
  /** The enclosing function (component), "file:line": an action in a variable may join any panel of it. */
  scope: string;
  /** Each conditional between the shortcut and its panel, with the branch taken: two shortcuts in different branches of one never show together. */
  branches: string[];
}

function evaluate(expression: ts.Expression, where: string): Key | Both {
  const text = expression.getText();
  const common = /^Keyboard\.Shortcut\.Common\.(\w+)$/.exec(text);
  if (common) {
    const value = (Keyboard.Shortcut.Common as Record<string, Both>)[common[1]!];
    if (!value) throw new Error(`${where}: ${text} is not one of Raycast's common shortcuts`);
    return value;
  }
  if (ts.isIdentifier(expression)) {
    const value = (own as Record<string, unknown>)[text];
    if (!value) throw new Error(`${where}: ${text} is not a constant of src/commands/lib/shortcuts.ts`);
    return value as Key;
  }
  if (ts.isObjectLiteralExpression(expression)) {
    // A literal: JSON once its keys are quoted.
    return JSON.parse(text.replace(/(\w+):/g, '"$1":').replace(/,\s*}/g, "}")) as Key;
  }
  throw new Error(`${where}: cannot read the shortcut ${text}; write a literal or a constant of lib/shortcuts.ts`);
}

function titleOf(element: ts.JsxOpeningLikeElement): string {
  const attr = element.attributes.properties.find(
    (p): p is ts.JsxAttribute => ts.isJsxAttribute(p) && p.name.getText() === "title",
  );
  const init = attr?.initializer;
  if (init && ts.isStringLiteral(init)) return init.text;
  return init?.getText() ?? element.tagName.getText();
}

/** Every `shortcut={…}` in the .tsx files under `dir`. */
export function sourceShortcuts(dir: string): FoundShortcut[] {
  const files = fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".tsx"))
    .map((e) => path.join(e.parentPath, e.name));
  return files.flatMap((file) => {
    const source = ts.createSourceFile(
      file,
      fs.readFileSync(file, "utf8"),
      ts.ScriptTarget.Latest,
      true,
      ts.ScriptKind.TSX,
    );
    const line = (node: ts.Node) =>
      `${path.relative(path.dirname(dir), file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const found: FoundShortcut[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isJsxAttribute(node) && node.name.getText() === "shortcut") {
        const init = node.initializer;
        const expression = init && ts.isJsxExpression(init) ? init.expression : undefined;
        const element = node.parent.parent as ts.JsxOpeningLikeElement;
        // A prop passed on (`shortcut={props.shortcut}`) is checked where it is given.
        if (expression && !expression.getText().startsWith("props.")) {
          const value = evaluate(expression, line(node));
          const branches: string[] = [];
          let panel: string | undefined;
          let scope = path.relative(path.dirname(dir), file);
          for (let up: ts.Node = element; up.parent; up = up.parent) {
            const parent = up.parent;
            if (ts.isConditionalExpression(parent) && up !== parent.condition)
              branches.push(`${line(parent)}@${parent.getStart()}:${up === parent.whenTrue ? "then" : "else"}`);
            if (panel === undefined && ts.isJsxElement(parent)) {
              const tag = parent.openingElement.tagName.getText();
              if (tag === "ActionPanel" || tag === "MenuBarExtra" || tag === "MenuBarExtra.Submenu")
                panel = line(parent);
            }
            if (ts.isFunctionLike(parent)) {
              scope = line(parent);
              break;
            }
          }
          const common = /^Keyboard\.Shortcut\.Common\.(\w+)$/.exec(expression.getText())?.[1];
          found.push({
            at: line(node),
            title: titleOf(element),
            written: expression.getText(),
            ...(common ? { common } : {}),
            ...bothPlatforms(value),
            ...(panel ? { panel } : {}),
            scope,
            branches,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    return found;
  });
}

/**
 * Whether two shortcuts can be in one action panel at once: in the same panel (or one kept in a
 * variable of the panel's component), and not in different branches of one conditional.
 */
export function canShowTogether(a: FoundShortcut, b: FoundShortcut): boolean {
  const samePanel = a.panel !== undefined && a.panel === b.panel;
  const loose = (a.panel === undefined || b.panel === undefined) && a.scope === b.scope;
  if (!samePanel && !loose) return false;
  const branchOf = (s: FoundShortcut) => new Map(s.branches.map((b) => [b.slice(0, b.lastIndexOf(":")), b]));
  const bs = branchOf(b);
  for (const [conditional, branch] of branchOf(a)) {
    const other = bs.get(conditional);
    if (other !== undefined && other !== branch) return false;
  }
  return true;
}
