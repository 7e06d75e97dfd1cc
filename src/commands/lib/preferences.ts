import { getPreferenceValues } from "@raycast/api";
import { DEFAULT_DICTATION, type DictationSettings } from "../../core/dictation/index.js";
import { binaryOverrides } from "../presenters/companion-launch.js";

/**
 * The extension's preferences. `Preferences` is the type `ray build` generates from package.json's
 * "preferences" into raycast-env.d.ts, committed so a clean clone type-checks before any build
 * (test/commands/manifest.test.ts keeps it in step with package.json).
 */
export function preferences(): Preferences {
  return getPreferenceValues<Preferences>();
}

/**
 * The environment the core and the companion get from this face: Raycast's own, plus the binary
 * paths from the preferences as OFFRUN_<HARNESS>_BIN (which locateBinary reads).
 */
export function faceEnv(prefs: Preferences = preferences()): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...binaryOverrides({ claude: prefs.claudePath, codex: prefs.codexPath, gemini: prefs.geminiPath }),
  };
}

export function dictationSettings(prefs: Preferences = preferences()): DictationSettings {
  return {
    ...DEFAULT_DICTATION,
    recorder: prefs.recorderPath?.trim() || DEFAULT_DICTATION.recorder,
    transcriber: prefs.speechToolPath?.trim() || DEFAULT_DICTATION.transcriber,
    model: prefs.speechModel?.trim() || "",
    language: prefs.speechLanguage?.trim() || DEFAULT_DICTATION.language,
  };
}
