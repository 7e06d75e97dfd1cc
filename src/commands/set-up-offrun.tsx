import path from "node:path";
import { Action, ActionPanel, Color, Detail, Icon, List, environment, type LaunchProps } from "@raycast/api";
import { usePromise } from "@raycast/utils";
import { setUpOffrun, type SetupResult, type SetupStep } from "../core/setup/set-up.js";
import { faceLoginEnvironment } from "./presenters/companion-start.js";
import { installCommand, setupHelpMarkdown, setupStepMarkdown } from "./presenters/setup-help.js";
import { START_COMPANION_COMMAND, startCompanion } from "./lib/companion.js";
import { describeError } from "./lib/failure.js";
import { faceEnv } from "./lib/preferences.js";

/**
 * Set Up Offrun: installs the offrun CLI this extension carries (assets/offrun-cli, made by
 * `npm run build:cli`), its launcher and the companion's login service, and shows each step.
 * Launched with `{ startCompanion: true }` (the menu bar's Start Companion), it only starts the
 * companion and shows how that went: a menu bar command is unloaded when its menu closes, so the
 * work that takes seconds is done in this view, which stays.
 */

export default function SetUpOffrun(props: Pick<LaunchProps, "launchContext">) {
  return props.launchContext?.startCompanion === true ? <StartCompanion /> : <SetUp />;
}

function StartCompanion() {
  const started = usePromise(startCompanion, []);
  const markdown = started.isLoading
    ? "## Starting the Companion…"
    : started.error
      ? `## Could Not Start the Companion\n\n${describeError(started.error)}\n\nIn a terminal: \`${START_COMPANION_COMMAND}\`.`
      : `## Companion Running\n\n${started.data?.message ?? ""}`;
  return (
    <Detail
      isLoading={started.isLoading}
      navigationTitle="Start Companion"
      markdown={markdown}
      actions={
        started.isLoading ? undefined : (
          <ActionPanel>
            {started.error ? (
              <Action title="Start Again" icon={Icon.ArrowClockwise} onAction={started.revalidate} />
            ) : null}
            {started.error ? (
              // eslint-disable-next-line @raycast/prefer-title-case -- Apple capitalizes a phrasal verb's particle ("Set Up"); the rule's word list lowercases it (test/helpers/title-case.ts)
              <Action.Push title="Set Up Offrun" icon={Icon.Gear} target={<SetUp />} />
            ) : null}
            <Action.CopyToClipboard title="Copy Start Command" content={START_COMPANION_COMMAND} />
          </ActionPanel>
        )
      }
    />
  );
}

/** The bundled CLI: scripts/build-cli.mjs puts it in assets/, which Raycast ships with the extension. */
export function bundledCliFolder(): string {
  return path.join(environment.assetsPath, "offrun-cli");
}

async function runSetup(): Promise<SetupResult> {
  // The login shell's PATH, not Raycast's: the login service runs the agent CLIs through it.
  const env = await faceLoginEnvironment(faceEnv(), process.execPath);
  return setUpOffrun({ source: bundledCliFolder(), env });
}

const ICONS: Record<SetupStep["status"], { source: Icon; tintColor: Color }> = {
  done: { source: Icon.CheckCircle, tintColor: Color.Green },
  warning: { source: Icon.Warning, tintColor: Color.Orange },
  failed: { source: Icon.XMarkCircle, tintColor: Color.Red },
  skipped: { source: Icon.Circle, tintColor: Color.SecondaryText },
};

function SetUp() {
  const setup = usePromise(runSetup, []);
  const result = setup.data;
  const command = installCommand(result);
  const help = <SetupHelp result={result} />;
  return (
    <List
      isLoading={setup.isLoading}
      isShowingDetail
      navigationTitle="Set Up Offrun"
      searchBarPlaceholder="Filter setup steps"
    >
      {setup.error ? (
        <List.Item
          icon={ICONS.failed}
          title="Setup Failed"
          detail={<List.Item.Detail markdown={`## Setup failed\n\n${setup.error.message}`} />}
          actions={
            <ActionPanel>
              <Action title="Run Setup Again" icon={Icon.ArrowClockwise} onAction={setup.revalidate} />
              <Action.Push title="Show Help" icon={Icon.QuestionMarkCircle} target={help} />
            </ActionPanel>
          }
        />
      ) : null}
      {(result?.steps ?? []).map((step) => (
        <List.Item
          key={step.id}
          icon={ICONS[step.status]}
          title={step.title}
          detail={<List.Item.Detail markdown={setupStepMarkdown(step)} />}
          actions={
            <ActionPanel>
              {step.fix ? <Action.CopyToClipboard title="Copy Install Command" content={step.fix} /> : null}
              {!step.fix && command ? <Action.CopyToClipboard title="Copy Install Command" content={command} /> : null}
              <Action.Push title="Show Help" icon={Icon.QuestionMarkCircle} target={help} />
              <Action title="Run Setup Again" icon={Icon.ArrowClockwise} onAction={setup.revalidate} />
            </ActionPanel>
          }
        />
      ))}
    </List>
  );
}

function SetupHelp({ result }: { result?: SetupResult }) {
  const command = installCommand(result);
  return (
    <Detail
      navigationTitle="Set Up Offrun Help"
      markdown={setupHelpMarkdown(process.env, result)}
      actions={
        command ? (
          <ActionPanel>
            <Action.CopyToClipboard title="Copy Install Command" content={command} />
          </ActionPanel>
        ) : undefined
      }
    />
  );
}
