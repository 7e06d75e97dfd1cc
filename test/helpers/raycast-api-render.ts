import { createElement, type ReactElement, type ReactNode } from "react";
import { ConcurrentRoot } from "react-reconciler/constants.js";
import { renderer, snapshot, type HostRoot, type UiNode } from "./raycast-api-host.js";
import { runtime } from "./raycast-api.js";

export type { UiNode } from "./raycast-api-host.js";

/**
 * Renders Raycast commands for tests, with react-reconciler (see raycast-api-host.ts): React runs
 * the components, hooks and effects, and Raycast's components become plain nodes that tests
 * inspect: `{ type: "List.Item", props, children, slots }`. No react-dom or react-test-renderer
 * is installed here, and a custom renderer is what react-reconciler is the public API for.
 */

/** The host type of one view of the navigation stack. */
const VIEW = "#view";
/** More commits than a command makes in any test: past it, a render loop is reported. */
const MAX_COMMITS = 2_000;

export class Screen {
  private readonly root: HostRoot;
  private readonly container: ReturnType<typeof renderer.createContainer>;
  private commits = 0;
  /** Raised by a component or an effect; the next wait rethrows it. */
  private failure: unknown;
  /** The view stack: Action.Push and useNavigation().push add to it. */
  readonly stack: ReactNode[];
  /** What each view of the stack rendered, bottom first, as of the last commit. */
  views: UiNode[][] = [];
  /** Values typed into uncontrolled form fields, by id. */
  readonly fieldValues = new Map<string, unknown>();
  /**
   * The top view as each commit left it, oldest first (the last 2,000): a state a user saw for a
   * moment (a list busy while a request is out) can be asserted after the fact, however briefly it
   * lasted, where polling `top` may miss it on a busy machine.
   */
  readonly seen: UiNode[][] = [];

  constructor(element: ReactNode) {
    this.stack = [element];
    this.root = { children: [], fieldValues: this.fieldValues, onCommit: () => this.committed() };
    const fail = (error: unknown) => void (this.failure ??= error);
    // A concurrent root: updates from effects, timers and presses are batched and rendered in a
    // Scheduler task (setImmediate under Node), as react-dom does; tests wait for them. Errors React
    // did not recover from, and those it recovered from by rendering again, fail the test; what an
    // error boundary catches is the command's own business.
    this.container = renderer.createContainer(
      this.root,
      ConcurrentRoot,
      null, // no hydration
      false, // not strict mode: each effect runs once
      null,
      "", // useId prefix
      fail,
      (error, info) => renderer.defaultOnCaughtError(error, info),
      fail,
      () => undefined, // no default transition indicator
      null,
    );
    runtime.navigation = {
      push: (next) => {
        this.stack.push(next);
        this.renderStack();
      },
      pop: () => {
        if (this.stack.length > 1) this.stack.pop();
        this.renderStack();
      },
    };
    // The first render is synchronous, effects included, so a test can query right after render().
    renderer.updateContainerSync(this.stackElements(), this.container, null, null);
    renderer.flushSyncWork();
  }

  /** The nodes of the view on top of the stack. */
  get top(): UiNode[] {
    return this.views.at(-1) ?? [];
  }

  /** Each view in its own host node, keyed by depth: the views below keep their state. */
  private stackElements(): ReactNode {
    return this.stack.map((element, depth) => createElement(VIEW, { key: depth }, element));
  }

  private renderStack(): void {
    renderer.updateContainer(this.stackElements(), this.container, null, null);
  }

  private committed(): void {
    this.views = this.root.children.map((view) => snapshot(view.children));
    this.seen.push(this.top);
    if (this.seen.length > 2_000) this.seen.shift();
    if (++this.commits === MAX_COMMITS) {
      this.failure ??= new Error(`the command re-rendered more than ${MAX_COMMITS} times: a render loop?`);
      queueMicrotask(() => this.unmount());
    }
  }

  /** Unmounts every view: effects are cleaned up before this returns. */
  unmount(): void {
    renderer.updateContainerSync(null, this.container, null, null);
    renderer.flushSyncWork();
    runtime.navigation = undefined;
  }

  /** Waits until `check` passes (returns without throwing), re-rendering as state settles. */
  async waitFor<T>(check: () => T, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.failure) throw this.failure;
      try {
        return check();
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Waits until nothing is scheduled for a moment (promises settled, effects run). */
  async settle(ms = 50): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (this.failure) throw this.failure;
  }

  // --- queries over the top view -----------------------------------------------------------

  findAll(type: string, where: (node: UiNode) => boolean = () => true, from: UiNode[] = this.top): UiNode[] {
    const found: UiNode[] = [];
    const walk = (nodes: UiNode[]) => {
      for (const node of nodes) {
        if (node.type === type && where(node)) found.push(node);
        walk(node.children);
        for (const slot of Object.values(node.slots)) walk(slot);
      }
    };
    walk(from);
    return found;
  }

  find(type: string, where?: (node: UiNode) => boolean, from?: UiNode[]): UiNode {
    const found = this.findAll(type, where, from);
    if (found.length === 0) throw new Error(`no <${type}> matched in:\n${describe(from ?? this.top)}`);
    return found[0]!;
  }

  /** The item (or anything) whose `title` prop is `title`. */
  byTitle(type: string, title: string, from?: UiNode[]): UiNode {
    return this.find(type, (n) => n.props.title === title, from);
  }

  /** Every action under a node's `actions` slot (or a whole view), as [type, title]. */
  actionsOf(node: UiNode): UiNode[] {
    return collect(
      node.slots.actions ?? node.children,
      (n) => n.type.startsWith("Action") && !n.type.startsWith("ActionPanel"),
    );
  }

  action(node: UiNode, title: string): UiNode {
    const found = this.actionsOf(node).find((a) => a.props.title === title);
    if (!found) {
      const titles = this.actionsOf(node).map((a) => a.props.title);
      throw new Error(`no action '${title}'; actions: ${JSON.stringify(titles)}`);
    }
    return found;
  }

  /** Moves the list's selection to `item`, as the arrow keys do: Raycast calls onSelectionChange with its id. */
  async select(item: UiNode): Promise<void> {
    const list = this.findAll("List", (n) => typeof n.props.onSelectionChange === "function")[0];
    // Set Up Offrun's list has none: "no <List> matched" over a List read as if the List were missing.
    if (!list) throw new Error("the <List> has no onSelectionChange: Raycast selects its first row; select none");
    (list.props.onSelectionChange as (id: string | null) => void)(String(item.props.id));
    await this.settle(20);
  }

  /** Does what pressing the action does in Raycast. */
  async press(action: UiNode): Promise<void> {
    const props = action.props;
    switch (action.type) {
      case "Action.Push":
        runtime.navigation?.push(props.target as ReactNode);
        break;
      case "Action.CopyToClipboard":
        runtime.clipboard.push(String(props.content));
        break;
      case "Action.SubmitForm": {
        const submit = props.onSubmit as ((values: Record<string, unknown>) => unknown) | undefined;
        await submit?.(this.formValues());
        break;
      }
      case "Action.Open":
      case "Action.OpenInBrowser":
      case "Action.OpenWith":
      case "Action.ShowInFinder":
        runtime.calls.push({ kind: action.type, args: [props.target ?? props.url ?? props.path, props.application] });
        break;
    }
    const onAction = props.onAction as (() => unknown) | undefined;
    await onAction?.();
    await this.settle(20);
  }

  /** Types into a form field (by id), as the user would. */
  setField(id: string, value: unknown): void {
    const field = this.findField(id);
    this.fieldValues.set(id, value);
    const onChange = field.props.onChange as ((v: unknown) => void) | undefined;
    onChange?.(value);
  }

  findField(id: string): UiNode {
    const fields = collect(this.top, (n) => n.type.startsWith("Form.") && n.props.id === id);
    if (!fields[0]) throw new Error(`no form field '${id}' in:\n${describe(this.top)}`);
    return fields[0];
  }

  /** What the form would submit: each field's controlled value, else what was typed, else its default. */
  formValues(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const field of collect(this.top, (n) => n.type.startsWith("Form.") && typeof n.props.id === "string")) {
      const id = field.props.id as string;
      values[id] =
        "value" in field.props
          ? field.props.value
          : this.fieldValues.has(id)
            ? this.fieldValues.get(id)
            : field.props.defaultValue;
    }
    return values;
  }
}

export function collect(nodes: UiNode[], where: (node: UiNode) => boolean): UiNode[] {
  const found: UiNode[] = [];
  const walk = (list: UiNode[]) => {
    for (const node of list) {
      if (where(node)) found.push(node);
      walk(node.children);
      for (const slot of Object.values(node.slots)) walk(slot);
    }
  };
  walk(nodes);
  return found;
}

/** The tree as indented text, for failure messages. */
export function describe(nodes: UiNode[], depth = 0): string {
  return nodes
    .map((node) => {
      const pad = "  ".repeat(depth);
      const title = node.props.title ?? node.props.text ?? node.props.id ?? "";
      return `${pad}<${node.type}> ${String(title)}\n${describe(node.children, depth + 1)}`;
    })
    .join("");
}

/** Renders a command (or any element) and returns the screen to query and act on. */
export function render(element: ReactElement): Screen {
  return new Screen(element);
}
