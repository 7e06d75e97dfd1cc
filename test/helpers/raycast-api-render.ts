import React, { type ReactElement, type ReactNode } from "react";
import { runtime, type HostComponent } from "./raycast-api.js";

/**
 * A small React renderer for the Raycast stand-in: function components run with a hooks
 * dispatcher of our own (state, reducer, ref, memo, callback, effects, context,
 * useSyncExternalStore, useId), and Raycast's components become plain nodes that tests
 * inspect: `{ type: "List.Item", props, children, slots }`. No react-dom or react-test-renderer
 * is installed here, and this is all @raycast/utils and Offrun's commands need.
 */

export interface UiNode {
  type: string;
  props: Record<string, unknown>;
  children: UiNode[];
  /** Element-valued props rendered too: `actions`, `detail`, `searchBarAccessory`, ... */
  slots: Record<string, UiNode[]>;
}

type Internals = { H: unknown };
const internals = (React as unknown as Record<string, Internals>)
  .__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE!;

const REACT_CONTEXT = Symbol.for("react.context");
const REACT_CONSUMER = Symbol.for("react.consumer");
const REACT_MEMO = Symbol.for("react.memo");
const REACT_FORWARD_REF = Symbol.for("react.forward_ref");
const REACT_FRAGMENT = Symbol.for("react.fragment");

type Deps = readonly unknown[] | undefined;
interface EffectSlot {
  kind: "effect";
  deps: Deps;
  ran: boolean;
  cleanup?: () => void;
}
type Slot =
  | { kind: "state"; value: unknown; dispatch: (action: unknown) => void; reducer: (s: unknown, a: unknown) => unknown }
  | { kind: "ref"; ref: { current: unknown } }
  | { kind: "memo"; deps: Deps; value: unknown }
  | EffectSlot
  | { kind: "store"; subscribe?: unknown; unsubscribe?: () => void; snapshot: unknown; getSnapshot: () => unknown }
  | { kind: "id"; id: string };

interface Instance {
  slots: Slot[];
}

function depsChanged(a: Deps, b: Deps): boolean {
  if (a === undefined || b === undefined) return true;
  return a.length !== b.length || a.some((value, i) => !Object.is(value, b[i]));
}

function isElement(value: unknown): value is ReactElement {
  return React.isValidElement(value);
}

let ids = 0;

export class Screen {
  private readonly instances = new Map<string, Instance>();
  private pendingEffects: (() => void)[] = [];
  private contextValues = new Map<unknown, unknown[]>();
  private scheduled = false;
  private renders = 0;
  private unmounted = false;
  /** Raised by a component or an effect; the next wait rethrows it. */
  private failure: unknown;
  /** The view stack: Action.Push and useNavigation().push add to it. */
  readonly stack: ReactNode[];
  /** What each view of the stack rendered, bottom first. */
  views: UiNode[][] = [];
  /** Values typed into uncontrolled form fields, by id. */
  readonly fieldValues = new Map<string, unknown>();

  constructor(element: ReactNode) {
    this.stack = [element];
    runtime.navigation = {
      push: (next) => {
        this.stack.push(next);
        this.schedule();
      },
      pop: () => {
        if (this.stack.length > 1) this.stack.pop();
        this.schedule();
      },
    };
    this.flush();
  }

  /** The nodes of the view on top of the stack. */
  get top(): UiNode[] {
    return this.views.at(-1) ?? [];
  }

  schedule(): void {
    if (this.scheduled || this.unmounted) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.unmounted) this.flush();
    });
  }

  private flush(): void {
    if (++this.renders > 2_000) throw new Error("the command re-rendered more than 2,000 times: a render loop?");
    const seen = new Set<string>();
    try {
      this.views = this.stack.map((element, index) => this.renderNode(element, `v${index}`, seen));
    } catch (error) {
      this.failure = error;
    }
    for (const [path, instance] of this.instances) {
      if (!seen.has(path)) {
        this.unmountInstance(instance);
        this.instances.delete(path);
      }
    }
    const effects = this.pendingEffects;
    this.pendingEffects = [];
    for (const effect of effects) {
      try {
        effect();
      } catch (error) {
        this.failure = error;
      }
    }
  }

  private unmountInstance(instance: Instance): void {
    for (const slot of instance.slots) {
      if (slot.kind === "effect") slot.cleanup?.();
      if (slot.kind === "store") slot.unsubscribe?.();
    }
  }

  unmount(): void {
    this.unmounted = true;
    for (const instance of this.instances.values()) this.unmountInstance(instance);
    this.instances.clear();
    runtime.navigation = undefined;
  }

  private renderNode(node: ReactNode, path: string, seen: Set<string>): UiNode[] {
    if (node === null || node === undefined || typeof node === "boolean") return [];
    if (typeof node === "string" || typeof node === "number" || typeof node === "bigint") {
      return [{ type: "#text", props: { text: String(node) }, children: [], slots: {} }];
    }
    if (Array.isArray(node)) {
      return node.flatMap((child, i) => {
        const key = isElement(child) && child.key !== null ? `k${child.key}` : String(i);
        return this.renderNode(child as ReactNode, `${path}/${key}`, seen);
      });
    }
    if (!isElement(node)) throw new Error(`cannot render ${String(node)}`);
    const type = node.type as unknown;
    const props = node.props as Record<string, unknown>;
    if (type === REACT_FRAGMENT) return this.renderNode(props.children as ReactNode, `${path}/f`, seen);
    if (typeof type === "function" && "$$host" in type) {
      return [this.renderHost((type as HostComponent).$$host, props, path, seen)];
    }
    if (typeof type === "object" && type !== null) {
      const tagged = type as { $$typeof?: symbol; type?: unknown; render?: unknown; _context?: unknown };
      if (tagged.$$typeof === REACT_CONTEXT) return this.withContext(type, props, path, seen);
      if (tagged.$$typeof === REACT_CONSUMER) {
        const render = props.children as (value: unknown) => ReactNode;
        return this.renderNode(render(this.readContext(tagged._context)), `${path}/c`, seen);
      }
      if (tagged.$$typeof === REACT_MEMO) {
        return this.renderNode(React.createElement(tagged.type as React.FC, props), path, seen);
      }
      if (tagged.$$typeof === REACT_FORWARD_REF) {
        const render = tagged.render as (p: unknown, ref: unknown) => ReactNode;
        return this.renderComponent(path, seen, () => render(props, null));
      }
    }
    if (typeof type === "function") {
      const component = type as (p: unknown) => ReactNode;
      return this.renderComponent(`${path}:${component.name || "anonymous"}`, seen, () => component(props));
    }
    throw new Error(`the Raycast stand-in cannot render <${String(type)}>: commands render Raycast components only`);
  }

  private renderHost(type: string, props: Record<string, unknown>, path: string, seen: Set<string>): UiNode {
    const own: Record<string, unknown> = {};
    const slots: Record<string, UiNode[]> = {};
    for (const [name, value] of Object.entries(props)) {
      if (name === "children") continue;
      // Action.Push's target is drawn only once pushed, like Raycast does.
      if (isElement(value) && name !== "target") slots[name] = this.renderNode(value, `${path}@${name}`, seen);
      else own[name] = value;
    }
    const children = this.renderNode(props.children as ReactNode, `${path}>${type}`, seen);
    return { type, props: own, children, slots };
  }

  private withContext(context: unknown, props: Record<string, unknown>, path: string, seen: Set<string>): UiNode[] {
    const stack = this.contextValues.get(context) ?? [];
    this.contextValues.set(context, stack);
    stack.push(props.value);
    try {
      return this.renderNode(props.children as ReactNode, `${path}/p`, seen);
    } finally {
      stack.pop();
    }
  }

  private readContext(context: unknown): unknown {
    const stack = this.contextValues.get(context);
    if (stack && stack.length > 0) return stack.at(-1);
    return (context as { _currentValue: unknown })._currentValue;
  }

  private renderComponent(path: string, seen: Set<string>, call: () => ReactNode): UiNode[] {
    seen.add(path);
    let instance = this.instances.get(path);
    if (!instance) {
      instance = { slots: [] };
      this.instances.set(path, instance);
    }
    const previous = internals.H;
    internals.H = this.dispatcher(instance);
    let output: ReactNode;
    try {
      output = call();
    } finally {
      internals.H = previous;
    }
    return this.renderNode(output, `${path}/r`, seen);
  }

  private dispatcher(instance: Instance) {
    let index = 0;
    const next = <S extends Slot>(create: () => S): S => {
      const i = index++;
      if (!instance.slots[i]) instance.slots[i] = create();
      return instance.slots[i] as S;
    };
    const useReducer = (
      reducer: (s: unknown, a: unknown) => unknown,
      initial: unknown,
      init?: (i: unknown) => unknown,
    ) => {
      const slot = next(() => {
        const created = {
          kind: "state" as const,
          reducer,
          value: init ? init(initial) : initial,
          dispatch: (action: unknown) => {
            const value = created.reducer(created.value, action);
            if (Object.is(value, created.value)) return;
            created.value = value;
            this.schedule();
          },
        };
        return created;
      });
      slot.reducer = reducer;
      return [slot.value, slot.dispatch];
    };
    const useEffect = (effect: () => void | (() => void), deps?: Deps) => {
      const slot = next<EffectSlot>(() => ({ kind: "effect", deps: undefined, ran: false }));
      if (slot.ran && !depsChanged(slot.deps, deps)) return;
      slot.ran = true;
      slot.deps = deps;
      this.pendingEffects.push(() => {
        slot.cleanup?.();
        const cleanup = effect();
        slot.cleanup = typeof cleanup === "function" ? cleanup : undefined;
      });
    };
    const useMemo = (factory: () => unknown, deps: Deps) => {
      const slot = next(() => ({ kind: "memo" as const, deps: undefined as Deps, value: undefined as unknown }));
      if (slot.deps === undefined || depsChanged(slot.deps, deps)) {
        slot.value = factory();
        slot.deps = deps ?? [Symbol()];
      }
      return slot.value;
    };
    return {
      useState: (initial: unknown) =>
        useReducer(
          (state, action) => (typeof action === "function" ? (action as (s: unknown) => unknown)(state) : action),
          initial,
          (i) => (typeof i === "function" ? (i as () => unknown)() : i),
        ),
      useReducer,
      useRef: (initial: unknown) => next(() => ({ kind: "ref" as const, ref: { current: initial } })).ref,
      useMemo,
      useCallback: (callback: unknown, deps: Deps) => useMemo(() => callback, deps),
      useEffect,
      useLayoutEffect: useEffect,
      useInsertionEffect: useEffect,
      useContext: (context: unknown) => this.readContext(context),
      use: (usable: unknown) => {
        const tagged = usable as { $$typeof?: symbol };
        if (tagged.$$typeof === REACT_CONTEXT) return this.readContext(usable);
        throw new Error("the Raycast stand-in does not suspend on promises");
      },
      useSyncExternalStore: (subscribe: (onChange: () => void) => () => void, getSnapshot: () => unknown) => {
        const slot = next(() => ({
          kind: "store" as const,
          subscribe: undefined as unknown,
          unsubscribe: undefined as undefined | (() => void),
          snapshot: undefined as unknown,
          getSnapshot,
        }));
        slot.getSnapshot = getSnapshot;
        slot.snapshot = getSnapshot();
        if (slot.subscribe !== subscribe) {
          slot.subscribe = subscribe;
          this.pendingEffects.push(() => {
            slot.unsubscribe?.();
            slot.unsubscribe = subscribe(() => {
              if (!Object.is(slot.getSnapshot(), slot.snapshot)) this.schedule();
            });
          });
        }
        return slot.snapshot;
      },
      useId: () => next(() => ({ kind: "id" as const, id: `:r${ids++}:` })).id,
      useDebugValue: () => undefined,
      useTransition: () => [false, (fn: () => void) => fn()],
      useDeferredValue: (value: unknown) => value,
      useOptimistic: (value: unknown) => [value, () => undefined],
      useActionState: () => {
        throw new Error("useActionState is not supported by the Raycast stand-in");
      },
    };
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
    this.schedule();
    await this.settle(20);
  }

  /** Types into a form field (by id), as the user would. */
  setField(id: string, value: unknown): void {
    const field = this.findField(id);
    this.fieldValues.set(id, value);
    const onChange = field.props.onChange as ((v: unknown) => void) | undefined;
    onChange?.(value);
    this.schedule();
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
