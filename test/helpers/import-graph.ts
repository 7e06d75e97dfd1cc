import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Every .ts/.tsx file under `dir`, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The specifiers one file imports: import and export declarations (`import type` too: a type is a
 * dependency of the design even when the compiler erases it), `import()` calls and `import("…")`
 * types.
 */
export function specifiersOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) found.push(first.text);
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) found.push(argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` or `./x.tsx`), or undefined for a package. */
function resolve(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = path.join(path.dirname(from), specifier);
  const stem = target.replace(/\.js$/, "");
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, target]) {
    if (fs.existsSync(path.join(root, candidate))) return candidate;
  }
  throw new Error(`${from} imports ${specifier}, which is no file under ${root}`);
}

/** File -> the files of `files` it imports. */
export function importGraph(root: string, files: readonly string[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), "utf8");
    const targets = new Set<string>();
    for (const specifier of specifiersOf(file, text)) {
      const target = resolve(root, file, specifier);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The same graph with each node mapped through `group` (edges inside one group dropped). */
export function groupGraph(graph: Map<string, Set<string>>, group: (file: string) => string | undefined) {
  const grouped = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const a = group(from);
    if (a === undefined) continue;
    if (!grouped.has(a)) grouped.set(a, new Set());
    for (const to of targets) {
      const b = group(to);
      if (b !== undefined && b !== a) grouped.get(a)!.add(b);
    }
  }
  return grouped;
}

/**
 * The graph's circles, one per strongly connected component of more than one node (Tarjan), each
 * as a path `a -> b -> … -> a` through it, so a failure names the imports to break.
 */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const connect = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return components.map((component) => circleThrough(graph, new Set(component)));
}

/** One shortest circle from the component's first node back to itself, staying inside it. */
function circleThrough(graph: Map<string, Set<string>>, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!component.has(to)) continue;
      if (to === start) {
        const circle = [start];
        for (let at = node; at !== start; at = previous.get(at)!) circle.splice(1, 0, at);
        return [...circle, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start];
}
