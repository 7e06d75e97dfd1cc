/**
 * Dictation on the device: a recorder and a speech tool, each a command template from the
 * preferences, checked before the microphone opens. The text it returns goes through the project
 * vocabulary (src/core/vocabulary) in the face, and nothing is sent until the user sends it.
 */
export { dictate, record, recordingFile, transcribe, type DictateOptions, type DictationStage } from "./dictate.js";
export {
  checkDictation,
  dictationAvailability,
  installCommand,
  DEFAULT_DICTATION,
  DEFAULT_RECORDER_ARGS,
  DEFAULT_SPEECH_ARGS,
  DictationToolMissing,
  type DictationAvailability,
  type DictationSettings,
  type DictationTool,
  type DictationTools,
} from "./tools.js";
export { cleanTranscript } from "./transcript.js";
export { splitTemplate, fillTemplate } from "./command-template.js";
