/// <reference types="@raycast/api">

/* 🚧 🚧 🚧
 * This file is auto-generated from the extension's manifest.
 * Do not modify manually. Instead, update the `package.json` file.
 * 🚧 🚧 🚧 */

/* eslint-disable @typescript-eslint/ban-types */

type ExtensionPreferences = {
  /** Offrun CLI - Path to the offrun command (found in the usual install folders when empty). */
  "offrunPath"?: string,
  /** Claude Code Binary - Path to claude, when it is not in the usual install folders. */
  "claudePath"?: string,
  /** Codex Binary - Path to codex, when it is not in the usual install folders. */
  "codexPath"?: string,
  /** Gemini CLI Binary - Path to gemini, when it is not in the usual install folders. */
  "geminiPath"?: string,
  /** Recorder - The command that records from the microphone into {file} and stops when you stop talking (sox's rec with its silence effect). Run without a shell; quote words with spaces. */
  "recorderPath": string,
  /** Speech Tool - The local speech-to-text command: {file} is the recording, {model} the model below, {language} the language; it prints the words. E.g. pocketsphinx_continuous -infile {file} -logfn /dev/null. */
  "speechToolPath": string,
  /** Speech Model - The model file for {model} in the speech tool's command (a whisper.cpp ggml .bin). */
  "speechModel"?: string,
  /** Speech Language - The spoken language for {language} in the speech tool's command (en, de, auto, ...). */
  "speechLanguage": string,
  /** Editor - The app that opens a worktree. */
  "editor"?: import("@raycast/api").Application,
  /** Terminal - The app that opens a worktree's shell and the CLIs' sign-in. */
  "terminal"?: import("@raycast/api").Application
}

/** Preferences accessible in all the extension's commands */
declare type Preferences = ExtensionPreferences

declare namespace Preferences {
  /** Preferences accessible in the `set-up-offrun` command */
  export type SetUpOffrun = ExtensionPreferences & {}
  /** Preferences accessible in the `start-agent` command */
  export type StartAgent = ExtensionPreferences & {}
  /** Preferences accessible in the `dictate-task` command */
  export type DictateTask = ExtensionPreferences & {}
  /** Preferences accessible in the `agents` command */
  export type Agents = ExtensionPreferences & {}
  /** Preferences accessible in the `agent-quota` command */
  export type AgentQuota = ExtensionPreferences & {}
  /** Preferences accessible in the `review-changes` command */
  export type ReviewChanges = ExtensionPreferences & {}
  /** Preferences accessible in the `project-memory` command */
  export type ProjectMemory = ExtensionPreferences & {}
  /** Preferences accessible in the `agent-accounts` command */
  export type AgentAccounts = ExtensionPreferences & {}
}

declare namespace Arguments {
  /** Arguments passed to the `set-up-offrun` command */
  export type SetUpOffrun = {}
  /** Arguments passed to the `start-agent` command */
  export type StartAgent = {}
  /** Arguments passed to the `dictate-task` command */
  export type DictateTask = {}
  /** Arguments passed to the `agents` command */
  export type Agents = {}
  /** Arguments passed to the `agent-quota` command */
  export type AgentQuota = {}
  /** Arguments passed to the `review-changes` command */
  export type ReviewChanges = {}
  /** Arguments passed to the `project-memory` command */
  export type ProjectMemory = {}
  /** Arguments passed to the `agent-accounts` command */
  export type AgentAccounts = {}
}

