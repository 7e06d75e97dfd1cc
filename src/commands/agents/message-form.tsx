import { Action, ActionPanel, Form, Icon, useNavigation } from "@raycast/api";
import { FormValidation, useCachedPromise, useForm } from "@raycast/utils";
import { useEffect, useRef } from "react";
import { clearDraft, readDraft } from "../../core/draft.js";
import type { AgentRecord } from "../../core/model.js";
import { applyVocabulary, loadProjectVocabulary } from "../../core/views/project-vocabulary.js";
import { appendText, dictateWithProgress } from "../lib/dictate.js";

/**
 * A message box for an agent (send a message, answer a question), dictation-first like Start Agent.
 * With `withDraft`, it opens holding the agent's draft (the fixes a review asked for): nothing is sent
 * until the user submits, and the draft is cleared only once the message went out.
 */
export function MessageForm(props: {
  record: AgentRecord;
  title: string;
  submitTitle: string;
  initialText?: string;
  withDraft?: boolean;
  onSend: (text: string) => Promise<boolean>;
}) {
  const { pop } = useNavigation();
  const vocabulary = useCachedPromise(loadProjectVocabulary, [props.record.project], { onError: () => undefined });
  const { project, name } = props.record;
  const draftShown = useRef(false);
  const draft = useCachedPromise(readDraft, [project, name], {
    execute: props.withDraft === true,
    onError: () => undefined,
  });
  const { handleSubmit, itemProps, values, setValue } = useForm<{ text: string }>({
    initialValues: { text: props.initialText ?? "" },
    validation: { text: FormValidation.Required },
    onSubmit: async ({ text }) => {
      if (!(await props.onSend(applyVocabulary(text, vocabulary.data, false)))) return;
      if (draftShown.current) await clearDraft(project, name);
      pop();
    },
  });
  // The draft fills the box once it is read, unless the user has typed meanwhile.
  useEffect(() => {
    const text = draft.data?.trimEnd();
    if (!text || draftShown.current || values.text.trim() !== "") return;
    draftShown.current = true;
    setValue("text", text);
  }, [draft.data]);
  return (
    <Form
      navigationTitle={props.title}
      actions={
        <ActionPanel>
          <Action
            title="Dictate"
            icon={Icon.Microphone}
            onAction={async () => {
              const text = await dictateWithProgress();
              if (text) setValue("text", appendText(values.text, applyVocabulary(text, vocabulary.data, false)));
            }}
          />
          <Action.SubmitForm
            title={props.submitTitle}
            icon={Icon.Envelope}
            shortcut={{ modifiers: ["cmd"], key: "return" }}
            onSubmit={handleSubmit}
          />
        </ActionPanel>
      }
    >
      <Form.Description
        title="Agent"
        text={`${props.record.name} · ${props.record.harness} · ${props.record.account}`}
      />
      {draftShown.current ? (
        <Form.Description title="" text="From the review's draft: edit it, then send. Nothing goes out before." />
      ) : null}
      <Form.TextArea
        {...itemProps.text}
        title="Message"
        autoFocus
        onChange={(text) => setValue("text", applyVocabulary(text, vocabulary.data, true))}
      />
    </Form>
  );
}
