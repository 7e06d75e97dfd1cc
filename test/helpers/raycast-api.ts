import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createElement, Fragment, isValidElement, type ReactElement, type ReactNode } from "react";
import * as z from "zod";

/**
 * The one Raycast stand-in (jest maps `@raycast/api` here). `@raycast/api` exists only inside
 * Raycast, so this module gives its components as "host" elements that the react-reconciler
 * renderer in test/helpers/raycast-api-render.ts turns into an inspectable tree, and records what the
 * imperative API was asked to do (toasts, HUDs, clipboard, opened URLs, launched commands).
 * Like herdr's tests/helpers/raycast-api.ts, but with the components, since Offrun's tests render
 * whole commands over real core state.
 */

/** A Raycast component: it renders the host element `$$host` ("List.Item"), a node of the test renderer. */
export type HostComponent = ((props: Record<string, unknown>) => ReactNode) & { $$host: string };

/** The host type of a rendered element-valued prop; the renderer files it under `UiNode.slots`. */
export const SLOT = "#slot";

/**
 * Raycast draws element-valued props (`actions`, `detail`, `searchBarAccessory`, ...) too, so each
 * becomes a keyed `#slot` child beside the real children: keys keep the children's state when a slot
 * comes or goes. Action.Push's `target` is drawn only once pushed, like Raycast does.
 */
function hostElement(name: string, { children, ...props }: Record<string, unknown>): ReactElement {
  const slots = Object.entries(props)
    .filter(([prop, value]) => prop !== "target" && isValidElement(value))
    .map(([prop, value]) => createElement(SLOT, { key: `@${prop}`, name: prop }, value as ReactNode));
  return createElement(name, props, createElement(Fragment, { key: "children" }, children as ReactNode), ...slots);
}

function host<T extends object = object>(name: string, members?: T): HostComponent & T {
  const component = ((props: Record<string, unknown>) => hostElement(name, props)) as HostComponent;
  component.$$host = name;
  Object.defineProperty(component, "name", { value: name.replace(/\./g, "") });
  return Object.assign(component, members ?? ({} as T));
}

/** Everything the command asked the runtime to do, in order; tests read and reset it. */
export interface RuntimeCall {
  kind: string;
  args: unknown[];
}
export const runtime = {
  calls: [] as RuntimeCall[],
  toasts: [] as Toast[],
  huds: [] as string[],
  clipboard: [] as string[],
  /** What confirmAlert answers (the user presses the primary button when true). */
  alertAnswer: true,
  alerts: [] as { title: string; message?: string; primaryAction?: { title: string } }[],
  preferences: {} as Record<string, unknown>,
  /** What is selected in Finder; empty: Finder is not the frontmost app (getSelectedFinderItems rejects). */
  finderSelection: [] as string[],
  /** Set by the renderer: how Action.Push and useNavigation reach the view stack. */
  navigation: undefined as undefined | { push(element: ReactNode): void; pop(): void },
  reset(): void {
    runtime.calls = [];
    runtime.toasts = [];
    runtime.huds = [];
    runtime.clipboard = [];
    runtime.alerts = [];
    runtime.alertAnswer = true;
    runtime.preferences = {};
    runtime.finderSelection = [];
    LocalStorageItems.clear();
    // Emptied in place: @raycast/utils keeps Cache instances at module level, holding these maps.
    for (const store of Cache.stores.values()) store.clear();
    environment.launchType = LaunchType.UserInitiated;
  },
};

function record(kind: string, ...args: unknown[]): void {
  runtime.calls.push({ kind, args });
}

// --- components -------------------------------------------------------------------------

const Metadata = host("Metadata", {
  Label: host("Metadata.Label"),
  Link: host("Metadata.Link"),
  Separator: host("Metadata.Separator"),
  TagList: host("Metadata.TagList", { Item: host("Metadata.TagList.Item") }),
});

export const List = host("List", {
  Item: host("List.Item", { Detail: host("List.Item.Detail", { Metadata }) }),
  Section: host("List.Section"),
  EmptyView: host("List.EmptyView"),
  Dropdown: host("List.Dropdown", {
    Item: host("List.Dropdown.Item"),
    Section: host("List.Dropdown.Section"),
  }),
});

export const Detail = host("Detail", { Metadata });

export const Form = host("Form", {
  TextField: host("Form.TextField"),
  TextArea: host("Form.TextArea"),
  PasswordField: host("Form.PasswordField"),
  Checkbox: host("Form.Checkbox"),
  DatePicker: host("Form.DatePicker"),
  Dropdown: host("Form.Dropdown", { Item: host("Form.Dropdown.Item"), Section: host("Form.Dropdown.Section") }),
  TagPicker: host("Form.TagPicker", { Item: host("Form.TagPicker.Item") }),
  FilePicker: host("Form.FilePicker"),
  Separator: host("Form.Separator"),
  Description: host("Form.Description"),
  LinkAccessory: host("Form.LinkAccessory"),
});

export enum ActionStyle {
  Regular = "regular",
  Destructive = "destructive",
}

export const Action = host("Action", {
  Style: ActionStyle,
  Push: host("Action.Push"),
  SubmitForm: host("Action.SubmitForm"),
  CopyToClipboard: host("Action.CopyToClipboard"),
  Paste: host("Action.Paste"),
  Open: host("Action.Open"),
  OpenInBrowser: host("Action.OpenInBrowser"),
  OpenWith: host("Action.OpenWith"),
  ShowInFinder: host("Action.ShowInFinder"),
  Trash: host("Action.Trash"),
  ToggleQuickLook: host("Action.ToggleQuickLook"),
  CreateQuicklink: host("Action.CreateQuicklink"),
  CreateSnippet: host("Action.CreateSnippet"),
  PickDate: host("Action.PickDate"),
});

export const ActionPanel = host("ActionPanel", {
  Section: host("ActionPanel.Section"),
  Submenu: host("ActionPanel.Submenu"),
});

export const MenuBarExtra = host("MenuBarExtra", {
  Item: host("MenuBarExtra.Item"),
  Section: host("MenuBarExtra.Section"),
  Submenu: host("MenuBarExtra.Submenu"),
  Separator: host("MenuBarExtra.Separator"),
});

// --- values -----------------------------------------------------------------------------

/** Icon.X is the string "X", so tests can read which icon a row has. */
export const Icon = new Proxy({} as Record<string, string>, { get: (_target, name) => String(name) });

export enum Color {
  Blue = "raycast-blue",
  Green = "raycast-green",
  Magenta = "raycast-magenta",
  Orange = "raycast-orange",
  Purple = "raycast-purple",
  Red = "raycast-red",
  Yellow = "raycast-yellow",
  PrimaryText = "raycast-primary-text",
  SecondaryText = "raycast-secondary-text",
}

export enum LaunchType {
  UserInitiated = "userInitiated",
  Background = "background",
}

type KeyShortcut = { modifiers: string[]; key: string };
const both = (macOS: KeyShortcut, windows: KeyShortcut) => ({ macOS, windows });

/**
 * Raycast's common shortcuts, as its Keyboard reference lists them (developers.raycast.com/api-reference/keyboard,
 * "Keyboard.Shortcut.Common"): one for each platform. Real values, so a test that two actions of a panel share
 * none, or that a destructive action uses Remove (⌃X), checks what Raycast would bind.
 */
export const Keyboard = {
  Shortcut: {
    Common: {
      Copy: both({ modifiers: ["cmd", "shift"], key: "c" }, { modifiers: ["ctrl", "shift"], key: "c" }),
      CopyDeeplink: both({ modifiers: ["cmd", "shift"], key: "c" }, { modifiers: ["ctrl", "shift"], key: "c" }),
      CopyName: both({ modifiers: ["cmd", "shift"], key: "." }, { modifiers: ["ctrl", "alt"], key: "c" }),
      CopyPath: both({ modifiers: ["cmd", "shift"], key: "," }, { modifiers: ["alt", "shift"], key: "c" }),
      Save: both({ modifiers: ["cmd"], key: "s" }, { modifiers: ["ctrl"], key: "s" }),
      Duplicate: both({ modifiers: ["cmd"], key: "d" }, { modifiers: ["ctrl", "shift"], key: "s" }),
      Edit: both({ modifiers: ["cmd"], key: "e" }, { modifiers: ["ctrl"], key: "e" }),
      MoveDown: both(
        { modifiers: ["cmd", "shift"], key: "arrowDown" },
        { modifiers: ["ctrl", "shift"], key: "arrowDown" },
      ),
      MoveUp: both({ modifiers: ["cmd", "shift"], key: "arrowUp" }, { modifiers: ["ctrl", "shift"], key: "arrowUp" }),
      New: both({ modifiers: ["cmd"], key: "n" }, { modifiers: ["ctrl"], key: "n" }),
      Open: both({ modifiers: ["cmd"], key: "o" }, { modifiers: ["ctrl"], key: "o" }),
      OpenWith: both({ modifiers: ["cmd", "shift"], key: "o" }, { modifiers: ["ctrl", "shift"], key: "o" }),
      Pin: both({ modifiers: ["cmd", "shift"], key: "p" }, { modifiers: ["ctrl"], key: "." }),
      Refresh: both({ modifiers: ["cmd"], key: "r" }, { modifiers: ["ctrl"], key: "r" }),
      Remove: both({ modifiers: ["ctrl"], key: "x" }, { modifiers: ["ctrl"], key: "d" }),
      RemoveAll: both({ modifiers: ["ctrl", "shift"], key: "x" }, { modifiers: ["ctrl", "shift"], key: "d" }),
      ToggleQuickLook: both({ modifiers: ["cmd"], key: "y" }, { modifiers: ["ctrl"], key: "y" }),
    },
  },
};

const supportPath = fs.mkdtempSync(path.join(os.tmpdir(), "raycast-support-"));
export const environment = {
  appearance: "dark" as const,
  theme: "dark" as const,
  textSize: "medium" as const,
  launchType: LaunchType.UserInitiated as LaunchType,
  commandName: "test",
  commandMode: "view" as const,
  extensionName: "offrun",
  ownerOrAuthorName: "offrun",
  assetsPath: path.resolve("assets"),
  supportPath,
  isDevelopment: true,
  raycastVersion: "1.104.0",
  canAccess: () => true,
};

export function getPreferenceValues<T = Record<string, unknown>>(): T {
  return { ...runtime.preferences } as T;
}

// --- toasts, HUD, alerts ------------------------------------------------------------------

enum ToastStyle {
  Success = "SUCCESS",
  Failure = "FAILURE",
  Animated = "ANIMATED",
}

interface ToastOptions {
  title: string;
  message?: string;
  style?: ToastStyle;
  primaryAction?: { title: string; onAction: (toast: Toast) => void };
  secondaryAction?: { title: string; onAction: (toast: Toast) => void };
}

export class Toast {
  static Style = ToastStyle;
  title: string;
  message?: string;
  style: ToastStyle;
  primaryAction?: ToastOptions["primaryAction"];
  secondaryAction?: ToastOptions["secondaryAction"];
  hidden = false;
  /** Every state the toast went through ("ANIMATED: Recording…", "SUCCESS: Done"). */
  history: string[] = [];

  constructor(options: ToastOptions) {
    this.title = options.title;
    this.message = options.message;
    this.style = options.style ?? ToastStyle.Success;
    this.primaryAction = options.primaryAction;
    this.secondaryAction = options.secondaryAction;
  }

  async show(): Promise<void> {
    this.hidden = false;
  }

  async hide(): Promise<void> {
    this.hidden = true;
  }
}

/** Keeps a toast's history as its fields change, like the real one updates on screen. */
function tracked(toast: Toast): Toast {
  const proxy = new Proxy(toast, {
    set(target, field, value) {
      Reflect.set(target, field, value);
      if (field === "title" || field === "style" || field === "message") {
        target.history.push(`${target.style}: ${target.title}${target.message ? ` — ${target.message}` : ""}`);
      }
      return true;
    },
  });
  toast.history.push(`${toast.style}: ${toast.title}${toast.message ? ` — ${toast.message}` : ""}`);
  return proxy;
}

export async function showToast(options: ToastOptions | ToastStyle, title?: string, message?: string): Promise<Toast> {
  const toast = tracked(
    new Toast(typeof options === "object" ? options : { style: options, title: title ?? "", message }),
  );
  runtime.toasts.push(toast);
  return toast;
}

export async function showHUD(title: string): Promise<void> {
  runtime.huds.push(title);
}

export const Alert = { ActionStyle: { Default: "default", Cancel: "cancel", Destructive: "destructive" } };

export async function confirmAlert(options: {
  title: string;
  message?: string;
  primaryAction?: { title: string };
}): Promise<boolean> {
  runtime.alerts.push(options);
  return runtime.alertAnswer;
}

// --- clipboard, storage, cache --------------------------------------------------------------

export const Clipboard = {
  async copy(content: string | { text: string }): Promise<void> {
    runtime.clipboard.push(typeof content === "string" ? content : content.text);
  },
  async paste(content: string): Promise<void> {
    record("paste", content);
  },
  async readText(): Promise<string | undefined> {
    return runtime.clipboard.at(-1);
  },
  async clear(): Promise<void> {
    runtime.clipboard = [];
  },
};

const LocalStorageItems = new Map<string, string | number | boolean>();
export const LocalStorage = {
  getItem: async (key: string) => LocalStorageItems.get(key),
  setItem: async (key: string, value: string | number | boolean) => {
    LocalStorageItems.set(key, value);
  },
  removeItem: async (key: string) => {
    LocalStorageItems.delete(key);
  },
  allItems: async () => Object.fromEntries(LocalStorageItems),
  clear: async () => LocalStorageItems.clear(),
};

/** Raycast's Cache, in memory: one store per namespace, shared by every instance (as on disk). */
export class Cache {
  static stores = new Map<string, Map<string, string>>();
  private readonly store: Map<string, string>;
  private readonly subscribers = new Set<(key: string | undefined, data: string | undefined) => void>();

  constructor(options: { namespace?: string; capacity?: number } = {}) {
    const namespace = options.namespace ?? "";
    if (!Cache.stores.has(namespace)) Cache.stores.set(namespace, new Map());
    this.store = Cache.stores.get(namespace)!;
  }

  // Methods are bound, as in Raycast: @raycast/utils passes `cache.subscribe` around on its own.
  get isEmpty(): boolean {
    return this.store.size === 0;
  }
  get = (key: string): string | undefined => this.store.get(key);
  has = (key: string): boolean => this.store.has(key);
  set = (key: string, data: string): void => {
    this.store.set(key, data);
    for (const subscriber of this.subscribers) subscriber(key, data);
  };
  remove = (key: string): boolean => {
    const had = this.store.delete(key);
    for (const subscriber of this.subscribers) subscriber(key, undefined);
    return had;
  };
  clear = (): void => {
    this.store.clear();
    for (const subscriber of this.subscribers) subscriber(undefined, undefined);
  };
  subscribe = (subscriber: (key: string | undefined, data: string | undefined) => void): (() => void) => {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  };
}

// --- navigation and the rest of the imperative API ------------------------------------------

export function useNavigation() {
  return {
    push: (element: ReactNode) => runtime.navigation?.push(element),
    pop: () => runtime.navigation?.pop(),
  };
}

export async function open(target: string, application?: unknown): Promise<void> {
  record("open", target, application);
}
/** As Raycast's: rejects unless Finder was the frontmost app (a test sets runtime.finderSelection). */
export async function getSelectedFinderItems(): Promise<{ path: string }[]> {
  record("getSelectedFinderItems");
  if (runtime.finderSelection.length === 0) throw new Error("Finder isn't the frontmost application");
  return runtime.finderSelection.map((item) => ({ path: item }));
}
export async function showInFinder(target: string): Promise<void> {
  record("showInFinder", target);
}
/** The commands package.json declares: Raycast's launchCommand rejects any other name in this extension. */
const COMMAND_NAMES = new Set(
  z
    .object({ commands: z.array(z.object({ name: z.string() })) })
    .parse(JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")))
    .commands.map((command) => command.name),
);

export async function launchCommand(options: { name: string; extensionName?: string }): Promise<void> {
  record("launchCommand", options);
  if (options.extensionName === undefined && !COMMAND_NAMES.has(options.name)) {
    throw new Error(`Command "${options.name}" not found in this extension's manifest`);
  }
}
export async function openExtensionPreferences(): Promise<void> {
  record("openExtensionPreferences");
}
export async function openCommandPreferences(): Promise<void> {
  record("openCommandPreferences");
}
export async function closeMainWindow(options?: unknown): Promise<void> {
  record("closeMainWindow", options);
}
export async function popToRoot(options?: unknown): Promise<void> {
  record("popToRoot", options);
}
export async function getApplications(): Promise<{ name: string; path: string; bundleId?: string }[]> {
  return [];
}
export async function updateCommandMetadata(metadata: unknown): Promise<void> {
  record("updateCommandMetadata", metadata);
}

// @raycast/utils imports these by name; Offrun uses neither.
export const AI = { Model: {}, ask: async () => "" };
export const OAuth = { PKCEClient: class {}, RedirectMethod: { Web: "web", App: "app", AppURI: "appURI" } };
