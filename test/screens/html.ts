import type { UiNode } from "../helpers/raycast-api-render.js";
import { CSS } from "./style.js";

/**
 * A rendered view (the stand-in's UiNode tree, test/helpers/raycast-api-render.ts) as one HTML page
 * laid out like Raycast's window: 750 × 475 at 1×, a search bar, the list (300 px beside a detail
 * pane of 450 px, test/helpers/row-width.ts), a form's two columns, the action bar, or a menu-bar
 * menu. It is a drawing of the layout, for reading what fits, not Raycast's pixels: Store
 * screenshots are taken in Raycast itself (README, "Screenshots").
 */

const COLORS: Record<string, string> = {
  "raycast-blue": "#3b82f6",
  "raycast-green": "#22c55e",
  "raycast-magenta": "#d946ef",
  "raycast-orange": "#f97316",
  "raycast-purple": "#a855f7",
  "raycast-red": "#ef4444",
  "raycast-yellow": "#eab308",
  "raycast-primary-text": "#f5f5f5",
  "raycast-secondary-text": "#9ca3af",
};

/** Raycast's icons as characters of the page's fonts (DejaVu has no emoji), near enough in meaning. */
const GLYPHS: Record<string, string> = {
  ArrowClockwise: "↻",
  ArrowRight: "→",
  Bell: "◆",
  Book: "▤",
  Check: "✓",
  CheckCircle: "✔",
  Checkmark: "✓",
  Circle: "○",
  CircleProgress50: "◐",
  Clipboard: "▥",
  Clock: "◷",
  Code: "‹›",
  Document: "▯",
  Envelope: "✉",
  ExclamationMark: "!",
  Gauge: "◔",
  Gear: "⚙",
  Globe: "◍",
  Hammer: "⚒",
  Hourglass: "◭",
  House: "⌂",
  Key: "⚷",
  List: "☰",
  Lock: "▣",
  LockUnlocked: "□",
  MagnifyingGlass: "◎",
  Microphone: "◉",
  Network: "⊞",
  Pencil: "✎",
  Person: "◯",
  Play: "▶",
  Plus: "+",
  Shield: "◈",
  SpeechBubble: "◌",
  Star: "★",
  Stars: "✦",
  Stop: "■",
  Terminal: "▭",
  Trash: "⌫",
  Undo: "↶",
  Warning: "⚠",
  XMarkCircle: "⊗",
};

const escape = (text: unknown) =>
  String(text ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

function icon(value: unknown): string {
  if (!value) return "";
  const source = typeof value === "string" ? value : (value as { source?: unknown }).source;
  const tint = typeof value === "object" ? (value as { tintColor?: string }).tintColor : undefined;
  const glyph = GLYPHS[String(source)] ?? "•";
  return `<span class="icon" style="color:${COLORS[tint ?? ""] ?? "#d4d4d4"}">${glyph}</span>`;
}

function accessory(value: unknown): string {
  const a = value as { text?: unknown; tag?: unknown; date?: Date; icon?: unknown };
  if (a.tag !== undefined) {
    const tag = typeof a.tag === "object" && a.tag ? (a.tag as { value: unknown; color?: string }) : { value: a.tag };
    const color = COLORS[tag.color ?? ""] ?? "#9ca3af";
    return `<span class="tag" style="color:${color};background:${color}22">${escape(tag.value)}</span>`;
  }
  if (a.date) return `<span class="acc">${escape(relative(a.date))}</span>`;
  const text = typeof a.text === "object" && a.text ? (a.text as { value: unknown }).value : a.text;
  return `<span class="acc">${icon(a.icon)}${escape(text)}</span>`;
}

function relative(date: Date): string {
  const minutes = Math.round((Date.now() - date.getTime()) / 60_000);
  return minutes < 60 ? `${minutes}m` : `${Math.round(minutes / 60)}h`;
}

/** Enough markdown for the detail panes: headings, quotes, code, lists, rules, bold and code spans. */
export function markdownHtml(markdown: string): string {
  const out: string[] = [];
  let fence: string[] | undefined;
  for (const line of markdown.split("\n")) {
    if (/^```/.test(line)) {
      if (fence) out.push(`<pre>${escape(fence.join("\n"))}</pre>`);
      fence = fence ? undefined : [];
      continue;
    }
    if (fence) {
      fence.push(line);
      continue;
    }
    const inline = (text: string) =>
      escape(text)
        .replace(/`([^`]+)`/g, "<code>$1</code>")
        .replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>")
        .replace(/\*([^*]+)\*/g, "<i>$1</i>");
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (heading) out.push(`<h${heading[1]!.length}>${inline(heading[2]!)}</h${heading[1]!.length}>`);
    else if (/^> ?/.test(line)) out.push(`<blockquote>${inline(line.replace(/^> ?/, ""))}</blockquote>`);
    else if (/^---$/.test(line)) out.push("<hr>");
    else if (/^- /.test(line)) out.push(`<li>${inline(line.slice(2))}</li>`);
    else if (line.trim() !== "") out.push(`<p>${inline(line)}</p>`);
  }
  if (fence) out.push(`<pre>${escape(fence.join("\n"))}</pre>`);
  return out.join("\n");
}

const isAction = (n: UiNode) => n.type === "Action" || (n.type.startsWith("Action.") && n.type !== "ActionPanel");

/** The first action of a panel (what ↵ does), for the action bar. */
function primaryAction(nodes: UiNode[] | undefined): string | undefined {
  for (const node of nodes ?? []) {
    if (isAction(node))
      return String(node.props.title ?? (node.type === "Action.ShowInFinder" ? "Show in Finder" : ""));
    const inner = primaryAction([...node.children, ...Object.values(node.slots).flat()]);
    if (inner) return inner;
  }
  return undefined;
}

function actionBar(title: string, actions: UiNode[] | undefined, key: string): string {
  const primary = primaryAction(actions);
  return `<div class="bar"><span class="nav">${escape(title)}</span><span class="keys">${
    primary ? `<b>${escape(primary)}</b> <kbd>${key}</kbd><span class="sep"></span>` : ""
  }Actions <kbd>⌘</kbd><kbd>K</kbd></span></div>`;
}

function metadata(nodes: UiNode[]): string {
  return nodes
    .map((n) => {
      if (n.type === "Metadata.Separator") return "<hr>";
      const text =
        typeof n.props.text === "object" && n.props.text ? (n.props.text as { value: unknown }).value : n.props.text;
      return `<div class="meta"><span>${escape(n.props.title)}</span><span>${escape(text)}</span></div>`;
    })
    .join("");
}

function listPage(list: UiNode, selectedId: string | undefined): { body: string; actions?: UiNode[] } {
  const sections: string[] = [];
  let selected: UiNode | undefined;
  let first = true;
  const row = (item: UiNode) => {
    const isSelected = selectedId ? item.props.id === selectedId : first;
    first = false;
    if (isSelected) selected = item;
    const accessories = ((item.props.accessories as unknown[]) ?? []).map(accessory).join("");
    return `<div class="row${isSelected ? " sel" : ""}">${icon(item.props.icon)}<span class="title">${escape(
      item.props.title,
    )}</span><span class="sub">${escape(item.props.subtitle)}</span><span class="accs">${accessories}</span></div>`;
  };
  for (const node of list.children) {
    if (node.type === "List.Section") {
      const items = node.children.filter((c) => c.type === "List.Item");
      if (items.length === 0) continue;
      sections.push(
        `<div class="section">${escape(node.props.title)}<span>${escape(node.props.subtitle)}</span></div>${items.map(row).join("")}`,
      );
    } else if (node.type === "List.Item") sections.push(row(node));
  }
  const empty = list.children.find((n) => n.type === "List.EmptyView");
  const detailShown = list.props.isShowingDetail === true && selected !== undefined;
  let content = sections.join("");
  if (!content && empty)
    content = `<div class="empty">${icon(empty.props.icon)}<h2>${escape(empty.props.title)}</h2><p>${escape(empty.props.description)}</p></div>`;
  const detailNode = selected?.slots.detail?.[0];
  const detail = detailShown && detailNode ? detailPane(detailNode) : "";
  const dropdown = list.slots.searchBarAccessory?.[0];
  const dropdownValue = dropdown?.children.find((c) => c.props.value === dropdown.props.value)?.props.title;
  const search = `<div class="search"><span class="placeholder">${escape(list.props.searchBarPlaceholder)}</span>${
    dropdown ? `<span class="dropdown">${escape(dropdownValue ?? dropdown.props.tooltip)} ⌄</span>` : ""
  }${list.props.isLoading ? '<span class="loading"></span>' : ""}</div>`;
  const body = `${search}<div class="main${detail ? " split" : ""}"><div class="list">${content}</div>${detail}</div>`;
  return { body, actions: selected?.slots.actions ?? empty?.slots.actions };
}

function detailPane(detail: UiNode): string {
  const meta = detail.slots.metadata?.[0];
  return `<div class="detail"><div class="md">${markdownHtml(String(detail.props.markdown ?? ""))}</div>${
    meta ? `<div class="metadata">${metadata(meta.children)}</div>` : ""
  }</div>`;
}

function formPage(form: UiNode): string {
  const fields = form.children
    .map((field) => {
      if (field.type === "Form.Separator") return "<hr>";
      if (field.type === "Form.Description")
        return `<div class="field"><label>${escape(field.props.title)}</label><p class="desc">${escape(field.props.text)}</p></div>`;
      let value: unknown = field.props.value ?? field.props.defaultValue;
      if (field.type === "Form.Dropdown") {
        const chosen = field.children.flatMap((c) => (c.type === "Form.Dropdown.Section" ? c.children : [c]));
        const item = chosen.find((c) => c.props.value === value) ?? chosen[0];
        value = item ? `${String(item.props.title)}  ⌄` : "⌄";
      }
      if (field.type === "Form.Checkbox") value = `${value ? "☑" : "☐"} ${String(field.props.label ?? "")}`;
      const shown = value ? escape(value) : `<span class="placeholder">${escape(field.props.placeholder)}</span>`;
      const tall = field.type === "Form.TextArea" ? " tall" : "";
      return `<div class="field"><label>${escape(field.props.title)}</label><div class="input${tall}">${shown}</div></div>`;
    })
    .join("");
  return `<div class="form">${fields}</div>`;
}

function menuPage(menu: UiNode): string {
  const items: string[] = [];
  const item = (n: UiNode, submenu = false) =>
    `<div class="mitem">${icon(n.props.icon)}<span>${escape(n.props.title)}</span><span class="sub">${escape(
      n.props.subtitle,
    )}</span>${submenu ? '<span class="chev">›</span>' : ""}</div>`;
  for (const node of menu.children) {
    if (node.type !== "MenuBarExtra.Section") {
      if (node.type === "MenuBarExtra.Item") items.push(item(node));
      continue;
    }
    if (items.length > 0) items.push('<div class="msep"></div>');
    if (node.props.title) items.push(`<div class="mhead">${escape(node.props.title)}</div>`);
    for (const child of node.children) items.push(item(child, child.type === "MenuBarExtra.Submenu"));
  }
  return `<div class="menubar"><span class="clock">Fri 21:50</span><span class="extra">${icon(menu.props.icon)} ${escape(
    menu.props.title,
  )}</span></div><div class="menu">${items.join("")}</div>`;
}

const KEY_SIGNS: Record<string, string> = { cmd: "⌘", ctrl: "⌃", opt: "⌥", shift: "⇧", return: "↵", delete: "⌫" };

function shortcutText(shortcut: unknown): string {
  if (!shortcut || typeof shortcut !== "object") return "";
  const mac = ("macOS" in shortcut ? shortcut.macOS : shortcut) as { modifiers: string[]; key: string };
  const order = ["ctrl", "opt", "shift", "cmd"];
  const modifiers = [...mac.modifiers].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return [...modifiers, mac.key].map((k) => KEY_SIGNS[k] ?? k.toUpperCase()).join("");
}

/** The action panel as ⌘K opens it over the window: sections, titles, submenus and shortcuts. */
function actionPanel(actions: UiNode[] | undefined): string {
  const rows: string[] = [];
  let index = 0;
  const walkPanel = (nodes: UiNode[]) => {
    for (const node of nodes) {
      if (node.type === "ActionPanel" || node.type === "#slot") walkPanel(node.children);
      else if (node.type === "ActionPanel.Section") {
        if (rows.length > 0) rows.push('<div class="msep"></div>');
        walkPanel(node.children);
      } else if (isAction(node) || node.type === "ActionPanel.Submenu") {
        const implicit = index === 0 ? "↵" : index === 1 ? "⌘↵" : "";
        const key = node.type === "ActionPanel.Submenu" ? "›" : shortcutText(node.props.shortcut) || implicit;
        const title = node.props.title ?? (node.type === "Action.ShowInFinder" ? "Show in Finder" : node.type);
        rows.push(
          `<div class="mitem${index === 0 ? " sel" : ""}">${icon(node.props.icon)}<span>${escape(title)}</span>${
            node.props.isLoading ? '<span class="sub">…</span>' : ""
          }<span class="chev">${escape(key)}</span></div>`,
        );
        index++;
      }
    }
  };
  walkPanel(actions ?? []);
  return `<div class="panel">${rows.join("")}</div>`;
}

/** One view as a whole page of WINDOW's size; `showActions` draws its action panel open over it. */
export function pageHtml(view: UiNode[], options: { selectedId?: string; showActions?: boolean } = {}): string {
  const root = view.find((n) => ["List", "Form", "Detail", "MenuBarExtra"].includes(n.type));
  if (!root) throw new Error(`nothing to draw: ${view.map((n) => n.type).join(", ")}`);
  let body: string;
  if (root.type === "MenuBarExtra") body = menuPage(root);
  else if (root.type === "Form")
    body = `<div class="window">${formPage(root)}${actionBar(String(root.props.navigationTitle ?? ""), root.slots.actions, "⌘↵")}</div>`;
  else if (root.type === "Detail")
    body = `<div class="window"><div class="md full">${markdownHtml(String(root.props.markdown ?? ""))}</div>${actionBar(
      String(root.props.navigationTitle ?? ""),
      root.slots.actions,
      "↵",
    )}</div>`;
  else {
    const list = listPage(root, options.selectedId ?? (root.props.selectedItemId as string | undefined));
    const panel = options.showActions ? actionPanel(list.actions) : "";
    body = `<div class="window">${list.body}${actionBar(String(root.props.navigationTitle ?? ""), list.actions, "↵")}${panel}</div>`;
  }
  return `<!doctype html><html><head><meta charset="utf-8"><style>${CSS}</style></head><body>${body}</body></html>`;
}
