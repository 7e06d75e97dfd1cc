import { Action, ActionPanel, Form, Icon, useNavigation } from "@raycast/api";
import { FormValidation, useCachedPromise, useForm } from "@raycast/utils";
import { useEffect, useMemo, useRef } from "react";
import { keepDraft, readDraft } from "../../core/records/draft.js";
import type { AgentRecord } from "../../core/foundation/model.js";
import { applyVocabulary, loadProjectVocabulary } from "../presenters/project-vocabulary.js";
import { appendText } from "../lib/dictate.js";
import { withAgentCompanion, type AgentTarget } from "../lib/companion.js";
import { readHostDraft } from "../presenters/host-agents.js";
import { DictateAction } from "../lib/dictate-action.js";
import { showFailure } from "../lib/failure.js";
import { DICTATE_SHORTCUT } from "../lib/shortcuts.js";
import { useSubmitOnce } from "../lib/submit-once.js";

/**
 * The box's text into the agent's draft (empty: no draft), written by the companion under the
 * draft's lock: a host's agent's draft is on the host, written by its companion.
 */
function saveDraft(target: AgentTarget, text: string): Promise<unknown> {
  const { project, name } = target.record;
  return withAgentCompanion(target, (client) => client.call("draft.write", { project, name, text }));
}

function loadDraft(project: string, name: string, host: string): Promise<string | undefined> {
  return host ? readHostDraft(host, project, name) : readDraft(project, name);
}

/**
 * A message box for an agent (send a message, answer a question), dictation-first like Start Agent.
 * With `withDraft`, it opens holding the agent's draft (the fixes a review asked for): nothing is sent
 * until the user submits, and the draft is cleared only once the message went out. What the user
 * types there is kept in the draft as they type (Form `enableDrafts` works only for a command's
 * root form, and this one is pushed), so closing the box without sending loses nothing.
 */
export function MessageForm(props: {
  record: AgentRecord;
  /** The machine the agent runs on, when not this one. */
  host?: string;
  title: string;
  submitTitle: string;
  initialText?: string;
  withDraft?: boolean;
  onSend: (text: string) => Promise<boolean>;
}) {
  const { pop } = useNavigation();
  const vocabulary = useCachedPromise(loadProjectVocabulary, [props.record.project], { onError: () => undefined });
  const { project, name } = props.record;
  const target = useMemo(
    () => ({ record: props.record, ...(props.host ? { host: props.host } : {}) }),
    [project, name, props.host],
  );
  const draftShown = useRef(false);
  const keeper = useMemo(
    () =>
      props.withDraft
        ? keepDraft((text) => saveDraft(target, text), {
            onError: (error) => void showFailure(error, "Could Not Keep the Draft"),
          })
        : undefined,
    [target, props.withDraft],
  );
  // Closing the box (Esc, a pop after a failed send) writes what is still waiting.
  useEffect(() => () => void keeper?.flush(), [keeper]);
  const draft = useCachedPromise(loadDraft, [project, name, props.host ?? ""], {
    execute: props.withDraft === true,
    onError: () => undefined,
  });
  const { submitting, once } = useSubmitOnce();
  const { handleSubmit, itemProps, values, setValue } = useForm<{ text: string }>({
    initialValues: { text: props.initialText ?? "" },
    validation: { text: FormValidation.Required },
    // One message per press: a second ⌘↵ while the first is on its way would send it twice.
    onSubmit: once(async ({ text }: { text: string }) => {
      if (!(await props.onSend(applyVocabulary(text, vocabulary.data, false)))) return;
      if (keeper) await keeper.sent();
      else if (draftShown.current) await saveDraft(target, "");
      pop();
    }),
  });
  // The box now holds what the user typed; only their edits are written (opening it writes nothing).
  const edit = (text: string) => {
    setValue("text", text);
    keeper?.edit(text);
  };
  // The draft fills the box once it is read. Typed before that, the text goes after the draft:
  // the box is saved over the draft, so it must hold both.
  useEffect(() => {
    const text = draft.data?.trimEnd();
    if (!text || draftShown.current) return;
    draftShown.current = true;
    if (values.text.trim() === "") setValue("text", text);
    else edit(`${text}\n\n${values.text}`);
  }, [draft.data]);
  return (
    <Form
      isLoading={submitting}
      navigationTitle={props.title}
      actions={
        <ActionPanel>
          <Action.SubmitForm title={props.submitTitle} icon={Icon.Envelope} onSubmit={handleSubmit} />
          <DictateAction
            shortcut={DICTATE_SHORTCUT}
            onText={(text) => edit(appendText(values.text, applyVocabulary(text, vocabulary.data, false)))}
          />
        </ActionPanel>
      }
    >
      <Form.Description
        title="Agent"
        text={`${props.record.name} · ${props.record.harness} · ${props.record.account}${props.host ? ` · on ${props.host}` : ""}`}
      />
      {draftShown.current ? (
        <Form.Description title="" text="From the review's draft: edit it, then send. Nothing goes out before." />
      ) : null}
      <Form.TextArea
        {...itemProps.text}
        title="Message"
        placeholder={`Say or type what ${props.record.name} should hear`}
        autoFocus
        onChange={(text) => edit(applyVocabulary(text, vocabulary.data, true))}
      />
    </Form>
  );
}
