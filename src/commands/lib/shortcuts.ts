import type { Keyboard } from "@raycast/api";

/**
 * The extension's own shortcuts, where none of Raycast's Keyboard.Shortcut.Common fits. None may
 * equal another action's in the same panel, nor a panel's implicit ones: ↵ and ⌘↵ for the first two
 * actions of a list, ⌘↵ and ⌘⇧↵ for those of a form (test/commands/manifest.test.ts checks).
 */

/** Dictate, beside a form's Submit (which has ⌘↵ as the form's primary action). */
export const DICTATE_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd", "shift"], key: "d" };

/** Stop a running agent: ⌘. is macOS's own "stop what is running" (Terminal, Xcode, Finder copies). */
export const STOP_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd"], key: "." };
