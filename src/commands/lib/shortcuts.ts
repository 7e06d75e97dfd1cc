import type { Keyboard } from "@raycast/api";

/**
 * The extension's own shortcuts, where none of Raycast's Keyboard.Shortcut.Common fits. None may
 * equal another action's in the same panel, nor a panel's implicit ones: ↵ and ⌘↵ for the first two
 * actions of a list, ⌘↵ and ⌘⇧↵ for those of a form (test/commands/manifest.test.ts checks).
 */

/**
 * Dictate, beside a form's Submit (which has ⌘↵ as the form's primary action): ⌘⇧L, "listen". ⌘⇧D was
 * Common.RemoveAll on Windows (⌃⇧D).
 */
export const DICTATE_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd", "shift"], key: "l" };

/**
 * Show Diff: ⌘G, the worktree's changes in Git. ⌘D was Common.Duplicate, and on Windows (⌃D)
 * Common.Remove, Discard's own key; ⌘⇧D is Common.RemoveAll there, and ⌥⌘D hides the Dock on macOS.
 */
export const DIFF_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd"], key: "g" };

/**
 * Stop a running agent: ⌥⌘. keeps the period of macOS's "stop what is running" (⌘. in Terminal,
 * Xcode, Finder copies) and equals none of Keyboard.Shortcut.Common on either platform, nor a key
 * Raycast reserves. ⌘. alone was one Shift from Common.CopyName (⌘⇧.), and is Common.Pin's key on
 * Windows (⌃.), where Raycast reads ⌘ as ⌃. test/commands/layout.test.tsx checks every shortcut of
 * src/commands this way, on both platforms, and against the others of its panel.
 */
export const STOP_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd", "opt"], key: "." };

/**
 * Approve and Deny the command an agent waits on: ⌥⌘Y and ⌥⌘N, the y and n of a CLI's own
 * prompt, beside Stop's ⌥⌘. and like it equal to no Keyboard.Shortcut.Common on either platform
 * nor a key Raycast reserves (test/commands/layout.test.tsx). Each asks first, showing the command.
 */
export const APPROVE_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd", "opt"], key: "y" };
export const DENY_SHORTCUT: Keyboard.Shortcut = { modifiers: ["cmd", "opt"], key: "n" };
