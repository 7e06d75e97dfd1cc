import { createContext, isValidElement } from "react";
import Reconciler from "react-reconciler";
import { DefaultEventPriority, NoEventPriority } from "react-reconciler/constants.js";
import { SLOT } from "./raycast-api.js";

/**
 * The host config of the test renderer, on react-reconciler (the public API for custom renderers).
 * Raycast's components render host elements (`List.Item`, `Action.Push`, ...), which become
 * {@link HostNode}s here: a mutable tree that React keeps up to date, and that the screen copies
 * into plain {@link UiNode}s after each commit for tests to read.
 */

export interface UiNode {
  type: string;
  props: Record<string, unknown>;
  children: UiNode[];
  /** Element-valued props rendered too: `actions`, `detail`, `searchBarAccessory`, ... */
  slots: Record<string, UiNode[]>;
}

/** The container of one screen: its views are the top-level nodes. */
export interface HostRoot {
  children: HostNode[];
  /** Values typed into uncontrolled form fields, by id (a field ref's `reset()` forgets one). */
  fieldValues: Map<string, unknown>;
  /** Called after every commit, when the tree is whole again. */
  onCommit(): void;
}

/** A host element or a text: text is `#text` with its string in `props.text`. */
export interface HostNode {
  type: string;
  props: Record<string, unknown>;
  children: HostNode[];
  /** Set while a Suspense fallback hides it. */
  hidden: boolean;
  root: HostRoot;
}

/** What a ref to a Raycast component holds: Form.ItemReference's focus() and reset(). */
export interface FieldRef {
  focus(): void;
  reset(): void;
}

const TEXT = "#text";

function node(type: string, props: Record<string, unknown>, root: HostRoot): HostNode {
  return { type, props, children: [], hidden: false, root };
}

/** Moves `child` before `before` (or to the end), as the DOM's insertBefore and appendChild do. */
function place(parent: { children: HostNode[] }, child: HostNode, before?: HostNode): void {
  remove(parent, child);
  const at = before ? parent.children.indexOf(before) : -1;
  if (at < 0) parent.children.push(child);
  else parent.children.splice(at, 0, child);
}

function remove(parent: { children: HostNode[] }, child: HostNode): void {
  const at = parent.children.indexOf(child);
  if (at >= 0) parent.children.splice(at, 1);
}

const noop = (): void => undefined;
/** No node renders differently by where it is, so there is one host context (React wants a non-null one). */
const HOST_CONTEXT = {};
// React sets the current priority while it works (commits, flushSync, transitions); an update made
// outside that (effects, timers, presses) is a default one, rendered with the others in a Scheduler task.
let updatePriority: number = NoEventPriority;

export const renderer = Reconciler({
  rendererPackageName: "offrun-raycast-stand-in",
  rendererVersion: "1.0.0",
  extraDevToolsConfig: null,
  isPrimaryRenderer: true,
  supportsMutation: true,
  supportsPersistence: false,
  supportsHydration: false,
  supportsMicrotasks: true,
  scheduleMicrotask: queueMicrotask,
  scheduleTimeout: setTimeout,
  cancelTimeout: clearTimeout,
  noTimeout: -1,

  createInstance: (type: string, props: Record<string, unknown>, root: HostRoot) => node(type, props, root),
  createTextInstance: (text: string, root: HostRoot) => node(TEXT, { text }, root),
  appendInitialChild: (parent: HostNode, child: HostNode) => place(parent, child),
  finalizeInitialChildren: () => false,
  shouldSetTextContent: () => false,
  getRootHostContext: () => HOST_CONTEXT,
  getChildHostContext: () => HOST_CONTEXT,
  getPublicInstance: (instance: HostNode): FieldRef => ({
    focus: noop,
    reset: () => void instance.root.fieldValues.delete(String(instance.props.id)),
  }),
  prepareForCommit: () => null,
  resetAfterCommit: (root: HostRoot) => root.onCommit(),
  preparePortalMount: noop,

  appendChild: (parent: HostNode, child: HostNode) => place(parent, child),
  appendChildToContainer: (root: HostRoot, child: HostNode) => place(root, child),
  insertBefore: (parent: HostNode, child: HostNode, before: HostNode) => place(parent, child, before),
  insertInContainerBefore: (root: HostRoot, child: HostNode, before: HostNode) => place(root, child, before),
  removeChild: (parent: HostNode, child: HostNode) => remove(parent, child),
  removeChildFromContainer: (root: HostRoot, child: HostNode) => remove(root, child),
  clearContainer: (root: HostRoot) => void root.children.splice(0),
  commitUpdate: (instance: HostNode, _type: string, _old: unknown, props: Record<string, unknown>) => {
    instance.props = props;
  },
  commitTextUpdate: (text: HostNode, _old: string, next: string) => {
    text.props = { text: next };
  },
  resetTextContent: noop,
  hideInstance: (instance: HostNode) => void (instance.hidden = true),
  hideTextInstance: (text: HostNode) => void (text.hidden = true),
  unhideInstance: (instance: HostNode) => void (instance.hidden = false),
  unhideTextInstance: (text: HostNode) => void (text.hidden = false),
  detachDeletedInstance: noop,

  setCurrentUpdatePriority: (priority: number) => void (updatePriority = priority),
  getCurrentUpdatePriority: () => updatePriority,
  resolveUpdatePriority: () => (updatePriority === NoEventPriority ? DefaultEventPriority : updatePriority),
  // Nothing here suspends a commit (no stylesheets or images to load) or has view transitions.
  maySuspendCommit: () => false,
  maySuspendCommitOnUpdate: () => false,
  maySuspendCommitInSyncRender: () => false,
  preloadInstance: () => true,
  startSuspendingCommit: () => null,
  suspendInstance: noop,
  suspendOnActiveViewTransition: noop,
  waitForCommitToBeReady: () => null,
  getSuspendedCommitReason: () => null,
  // Form actions, transitions and DOM events: a react-dom matter, inert here.
  NotPendingTransition: null,
  HostTransitionContext: createContext(null),
  resetFormInstance: noop,
  requestPostPaintCallback: noop,
  shouldAttemptEagerTransition: () => false,
  trackSchedulerEvent: noop,
  resolveEventType: () => null,
  resolveEventTimeStamp: () => -1.1,
  getInstanceFromNode: () => null,
  beforeActiveInstanceBlur: noop,
  afterActiveInstanceBlur: noop,
  prepareScopeUpdate: noop,
  getInstanceFromScope: () => null,
  // Called only for errors replayed from a server environment, which the commands do not have.
  bindToConsole: (_method: string, args: unknown[]) => console.error.bind(console, ...args),
});

/** A copy of the tree for tests: slots split out, rendered element props and hidden nodes left out. */
export function snapshot(nodes: HostNode[]): UiNode[] {
  return nodes.filter((n) => !n.hidden && n.type !== SLOT).map(toUiNode);
}

function toUiNode(host: HostNode): UiNode {
  const props: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(host.props)) {
    if (name !== "children" && (name === "target" || !isValidElement(value))) props[name] = value;
  }
  const slots: Record<string, UiNode[]> = {};
  for (const child of host.children) {
    if (child.type === SLOT && !child.hidden) slots[String(child.props.name)] = snapshot(child.children);
  }
  return { type: host.type, props, children: snapshot(host.children), slots };
}
