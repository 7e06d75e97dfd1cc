import { Action, ActionPanel, Form, Icon, Toast, environment, open, showToast, useNavigation } from "@raycast/api";
import { FormValidation, useForm } from "@raycast/utils";
import type { Login } from "../../core/foundation/login-model.js";
import { writeLoginScript } from "../presenters/logins-view.js";
import { withCompanion } from "../lib/companion.js";
import { showFailure } from "../lib/failure.js";
import { faceEnv, preferences } from "../lib/preferences.js";

/** Agent Logins' forms: add a login (then sign in to it) and rename one, both through the companion. */

/** Opens the CLI's own sign-in for the login in Terminal, with the login's home. */
export async function signIn(login: Login) {
  try {
    const script = await writeLoginScript(environment.supportPath, login, faceEnv());
    await open(script, preferences().terminal ?? "Terminal");
    await showToast({
      style: Toast.Style.Success,
      title: "Sign In with Terminal",
      message: `${login.harness} · ${login.label}`,
    });
  } catch (error) {
    await showFailure(error, "Cannot Open the Sign-In");
  }
}

/** The CLIs a login can be added to: every harness the registry lists, custom ACP agents included. */
export type CliChoice = { id: string; name: string };

export function AddLoginForm({ harness, clis, onAdded }: { harness?: string; clis: CliChoice[]; onAdded: () => void }) {
  const { pop } = useNavigation();
  const { handleSubmit, itemProps } = useForm<{ harness: string; label: string; home: string[] }>({
    initialValues: { harness: harness ?? clis[0]?.id ?? "", label: "", home: [] },
    validation: { label: FormValidation.Required },
    onSubmit: async (values) => {
      try {
        // Through the companion, the one writer of accounts.json.
        const home = values.home[0];
        const login = await withCompanion((client) =>
          client.call("login.add", {
            harness: values.harness,
            label: values.label.trim(),
            ...(home === undefined ? {} : { home }),
          }),
        );
        onAdded();
        pop();
        await signIn(login);
      } catch (error) {
        await showFailure(error, "Could Not Add the Login");
      }
    },
  });
  return (
    <Form
      navigationTitle="Add Login"
      actions={
        <ActionPanel>
          {/* eslint-disable-next-line @raycast/prefer-title-case -- Apple capitalizes a phrasal verb's particle ("Sign In"); the rule's word list lowercases it (test/helpers/title-case.ts) */}
          <Action.SubmitForm title="Add and Sign In" icon={Icon.Plus} onSubmit={handleSubmit} />
        </ActionPanel>
      }
    >
      <Form.Dropdown {...itemProps.harness} title="Agent CLI">
        {clis.map((h) => (
          <Form.Dropdown.Item key={h.id} value={h.id} title={h.name} />
        ))}
      </Form.Dropdown>
      <Form.TextField
        {...itemProps.label}
        title="Label"
        placeholder="work"
        info="Lowercase letters, digits, '-' and '_'"
      />
      <Form.FilePicker
        {...itemProps.home}
        title="Existing Home"
        canChooseDirectories
        canChooseFiles={false}
        allowMultipleSelection={false}
        info="Leave empty: Offrun makes a new home for this login"
      />
    </Form>
  );
}

export function RenameLoginForm({ login, onRenamed }: { login: Login; onRenamed: () => void }) {
  const { pop } = useNavigation();
  const { handleSubmit, itemProps } = useForm<{ label: string }>({
    initialValues: { label: login.label },
    validation: { label: FormValidation.Required },
    onSubmit: async ({ label }) => {
      try {
        // Through the companion: it renames while no turn on this login can start.
        const result = await withCompanion((client) =>
          client.call("login.rename", { harness: login.harness, label: login.label, to: label.trim() }),
        );
        await showToast({
          style: Toast.Style.Success,
          title: `Renamed to ${result.account.label}`,
          message: result.agents.length > 0 ? `${result.agents.length} agent(s) go on under the new name` : undefined,
        });
        onRenamed();
        pop();
      } catch (error) {
        await showFailure(error, "Could Not Rename the Login");
      }
    },
  });
  return (
    <Form
      navigationTitle={`Rename ${login.label}`}
      actions={
        <ActionPanel>
          <Action.SubmitForm title="Rename" icon={Icon.Pencil} onSubmit={handleSubmit} />
        </ActionPanel>
      }
    >
      <Form.TextField
        {...itemProps.label}
        title="Label"
        placeholder={login.label}
        info="Lowercase letters, digits, '-' and '_'"
      />
      <Form.Description title="" text={`The home stays ${login.home}, with its sign-in.`} />
    </Form>
  );
}
