import {
  Action,
  ActionPanel,
  Form,
  Icon,
  LaunchType,
  Toast,
  launchCommand,
  popToRoot,
  showToast,
  type LaunchProps,
} from "@raycast/api";
import { FormValidation, useCachedPromise, useCachedState, useForm } from "@raycast/utils";
import { useEffect, useRef } from "react";
import type { Mode } from "../core/foundation/model.js";
import { visible } from "../core/foundation/visible.js";
import { applyVocabulary, loadProjectVocabulary } from "./presenters/project-vocabulary.js";
import { loadFoundProjects, loadStartOptions, type HarnessChoice } from "./presenters/start-options.js";
import {
  hostProjectValue,
  loadHostProjects,
  loadHostStartOptions,
  parseProjectValue,
} from "./presenters/host-start.js";
import { ADD_PROJECT, useAddProject } from "./lib/add-project.js";
import { finderRepository } from "./lib/finder-project.js";
import { withCompanion } from "./lib/companion.js";
import { appendText, type StartAgentContext } from "./lib/dictate.js";
import { DictateAction } from "./lib/dictate-action.js";
import { TrustRepository } from "./lib/trust-repository.js";
import { showFailure } from "./lib/failure.js";
import { faceEnv } from "./lib/preferences.js";
import { DICTATE_SHORTCUT } from "./lib/shortcuts.js";
import { useSubmitOnce } from "./lib/submit-once.js";

/** Start Agent: a dictation-first form. Nothing is sent until the user presses Start Agent. */

export interface StartValues {
  prompt: string;
  project: string;
  harness: string;
  account: string;
  mode: string;
  name: string;
  base: string;
  /** "" the project's choice, "on" in the sandbox, "off" outside it. */
  sandbox?: string;
}

/** A host's companion creates the worktree and starts the CLI there before it answers. */
const HOST_START_MS = 60_000;

/** The value of the login dropdown that leaves the choice to Offrun at dispatch. */
export const PICK_FOR_ME = "";

/** What the form sends to the companion's agent.start. */
export function startRequest(values: StartValues) {
  return {
    project: values.project,
    prompt: values.prompt.trim(),
    harness: values.harness || undefined,
    mode: (values.mode === "plan" ? "plan" : "build") as Mode,
    name: values.name.trim() || undefined,
    base: values.base || undefined,
    account: values.account || undefined,
    sandbox: values.sandbox === "on" ? true : values.sandbox === "off" ? false : undefined,
  };
}

function loginDropdownTitle(choice: HarnessChoice | undefined): string {
  const pick = choice?.logins.find((l) => l.label === choice.pick);
  if (!choice) return "Most Headroom";
  if (!pick) return "Most headroom (every login is limited)";
  return `Most headroom: ${pick.title}`;
}

export default function StartAgent(props: LaunchProps<{ draftValues: StartValues; launchContext: StartAgentContext }>) {
  const draft = props.draftValues;
  const [lastProject, setLastProject] = useCachedState<string>("start-agent:project", "");
  const [project, setProject] = useCachedState<string>("start-agent:selected", draft?.project ?? lastProject);
  const env = faceEnv();
  // A host's project (devbox:/srv/app) gets the host's CLIs and logins; this Mac's, its own.
  const options = useCachedPromise(
    (value: string) => {
      // A draft kept while Add Project… was chosen names no project yet.
      const p = value === ADD_PROJECT ? "" : value;
      const { host, root } = parseProjectValue(p);
      return host ? loadHostStartOptions(host, root) : loadStartOptions({ project: p || undefined, env });
    },
    [project],
    { keepPreviousData: true, onError: (error) => void showFailure(error, "Cannot Read Projects") },
  );
  const hostProjects = useCachedPromise(loadHostProjects, [], { keepPreviousData: true, onError: () => undefined });
  // Repositories in ~/Developer, ~/code… that no agent ran in yet: a first start can pick one.
  const found = useCachedPromise(loadFoundProjects, [], { keepPreviousData: true, onError: () => undefined });
  const selectedProject = (project === ADD_PROJECT ? "" : project) || options.data?.project || "";
  const vocabulary = useCachedPromise(
    (root: string) =>
      root && !parseProjectValue(root).host ? loadProjectVocabulary(root) : Promise.resolve(undefined),
    [selectedProject],
    { keepPreviousData: false, onError: () => undefined },
  );

  const { submitting, once } = useSubmitOnce();
  const { handleSubmit, itemProps, values, setValue, reset } = useForm<StartValues>({
    initialValues: {
      // Dictate Task opens this form with the task it heard.
      prompt: props.launchContext?.prompt ?? draft?.prompt ?? "",
      project: selectedProject,
      harness: draft?.harness ?? "",
      account: draft?.account ?? PICK_FOR_ME,
      mode: draft?.mode ?? "",
      name: draft?.name ?? "",
      base: draft?.base ?? "",
      sandbox: draft?.sandbox ?? "",
    },
    validation: {
      prompt: FormValidation.Required,
      project: (value) =>
        value === ADD_PROJECT
          ? "Pick the project's folder below"
          : value
            ? undefined
            : "Choose a project (a git repository)",
      name: (value) =>
        value && !/^[a-z0-9][a-z0-9-]{0,47}$/.test(value) ? "Lowercase letters, digits and '-'" : undefined,
    },
    // One agent per press: a second ⌘↵ while the companion makes the first one's worktree is ignored.
    onSubmit: once(async (submitted: StartValues) => {
      const request = startRequest({
        ...submitted,
        project: submitted.project || selectedProject,
        harness: submitted.harness || options.data?.defaultHarness || "",
        mode: submitted.mode || options.data?.defaultMode || "build",
        prompt: applyVocabulary(submitted.prompt, vocabulary.data, false),
      });
      const { host, root } = parseProjectValue(request.project);
      const toast = await showToast({
        style: Toast.Style.Animated,
        title: host ? `Starting agent on ${host}…` : "Starting agent…",
      });
      try {
        const started = await withCompanion((client) =>
          (host ? client.on(host, HOST_START_MS) : client).call("agent.start", { ...request, project: root }),
        );
        setLastProject(request.project);
        toast.style = Toast.Style.Success;
        toast.title = `Started ${host ? `${host}:` : ""}${started.agent.name}`;
        toast.message = [`${started.agent.harness} · ${started.agent.account}`, ...started.warnings].join(" — ");
        toast.primaryAction = {
          title: "Open Agents",
          onAction: () => void launchCommand({ name: "agents", type: LaunchType.UserInitiated }),
        };
        reset({ ...submitted, prompt: "", name: "" });
        await popToRoot({ clearSearchBar: true });
      } catch (error) {
        await toast.hide();
        await showFailure(error, "Could Not Start the Agent");
      }
    }),
  });

  // Opened over Finder with a folder or file of a repository selected: that is the project, listed
  // first (recent first), unless a draft or Dictate Task already chose one, or the user picked one
  // while Finder was being asked.
  const pickedByUser = useRef(false);
  useEffect(() => {
    if (draft?.project) return;
    void finderRepository().then((root) => {
      if (!root || pickedByUser.current) return;
      setProject(root);
      setValue("project", root);
    });
  }, []);

  const addProject = useAddProject((root) => {
    setValue("project", root);
    setProject(root);
    void options.revalidate();
    void found.revalidate();
  });

  const data = options.data;
  const harnessId = values.harness || data?.defaultHarness || "";
  const harness = data?.harnesses.find((h) => h.id === harnessId);
  // The login set as default in Agent Logins is preselected once, unless a draft chose one.
  const preselected = useRef(draft?.account !== undefined && draft.account !== PICK_FOR_ME);
  useEffect(() => {
    if (preselected.current || !harness) return;
    preselected.current = true;
    if (harness.defaultLogin) setValue("account", harness.defaultLogin);
  }, [harness]);

  // Submit is the form's primary action (⌘↵, Raycast's own binding for a form's first action); Dictate
  // has a key of its own, so neither shadows the other.
  const localProjects = (data?.projects ?? []).map((p) => (
    <Form.Dropdown.Item key={p.root} value={p.root} title={visible(p.name, "line")} keywords={[p.root]} />
  ));
  const listed = new Set((data?.projects ?? []).map((p) => p.root));
  const foundProjects = (found.data ?? []).filter((p) => !listed.has(p.root));
  // With no project at all (a first start), Add Project… is what the dropdown shows.
  const projectValue = values.project || selectedProject || ADD_PROJECT;
  const untrusted = projectValue === ADD_PROJECT ? undefined : data?.untrusted;

  const dictateAction = (
    <DictateAction
      shortcut={DICTATE_SHORTCUT}
      onText={(text) => setValue("prompt", appendText(values.prompt, applyVocabulary(text, vocabulary.data, false)))}
    />
  );

  return (
    <Form
      isLoading={options.isLoading || submitting}
      enableDrafts
      actions={
        <ActionPanel>
          <Action.SubmitForm title="Start Agent" icon={Icon.Play} onSubmit={handleSubmit} />
          {dictateAction}
          {projectValue === ADD_PROJECT ? addProject.action : null}
          {untrusted ? (
            <Action.Push
              title="Review Repository Settings"
              icon={Icon.Shield}
              target={
                <TrustRepository root={selectedProject} settings={untrusted.settings} onTrusted={options.revalidate} />
              }
            />
          ) : null}
        </ActionPanel>
      }
    >
      <Form.TextArea
        {...itemProps.prompt}
        title="Task"
        placeholder="Say or type what the agent should do"
        autoFocus
        enableMarkdown={false}
        onChange={(text) => setValue("prompt", applyVocabulary(text, vocabulary.data, true))}
      />
      <Form.Dropdown
        {...itemProps.project}
        title="Project"
        value={projectValue}
        onChange={(root) => {
          if (root !== values.project) pickedByUser.current = true;
          setValue("project", root);
          if (root !== ADD_PROJECT && root !== project) setProject(root);
        }}
      >
        {/* Sections only when there are hosts: this Mac's projects, then each host's. */}
        {(hostProjects.data ?? []).length > 0 ? (
          <Form.Dropdown.Section title="This Mac">{localProjects}</Form.Dropdown.Section>
        ) : (
          localProjects
        )}
        {foundProjects.length > 0 ? (
          <Form.Dropdown.Section title="Found on This Mac">
            {foundProjects.map((p) => (
              <Form.Dropdown.Item
                key={p.root}
                value={p.root}
                title={visible(p.name, "line")}
                icon={Icon.Folder}
                keywords={[p.root]}
              />
            ))}
          </Form.Dropdown.Section>
        ) : null}
        {(hostProjects.data ?? []).map((h) => (
          <Form.Dropdown.Section key={h.host} title={h.problem ? `${h.host}: ${h.problem}` : h.host}>
            {h.projects.map((p) => (
              <Form.Dropdown.Item
                key={p.root}
                value={hostProjectValue(h.host, p.root)}
                title={`${p.name} on ${h.host}`}
                icon={Icon.Network}
                keywords={[p.root, h.host]}
              />
            ))}
          </Form.Dropdown.Section>
        ))}
        <Form.Dropdown.Section>
          <Form.Dropdown.Item value={ADD_PROJECT} title="Add Project…" icon={Icon.Plus} />
        </Form.Dropdown.Section>
      </Form.Dropdown>
      {projectValue === ADD_PROJECT ? addProject.fields : null}
      {untrusted ? (
        <Form.Description
          title="Not Trusted"
          text={`This repository's settings (${untrusted.settings.map((s) => s.key).join(", ")}) ${untrusted.changedSince ? "changed since you trusted them" : "are not trusted yet"}: agents start without them. Review Repository Settings (in the actions) shows what they would run.`}
        />
      ) : null}
      <Form.Dropdown
        {...itemProps.harness}
        title="Agent CLI"
        value={harnessId}
        onChange={(id) => {
          setValue("harness", id);
          setValue("account", data?.harnesses.find((h) => h.id === id)?.defaultLogin ?? PICK_FOR_ME);
        }}
      >
        {(data?.harnesses ?? []).map((h) => (
          <Form.Dropdown.Item
            key={h.id}
            value={h.id}
            title={h.installed ? h.name : `${h.name} (not installed)`}
            icon={h.installed ? Icon.Terminal : Icon.XMarkCircle}
          />
        ))}
      </Form.Dropdown>
      <Form.Dropdown {...itemProps.account} title="Login">
        <Form.Dropdown.Item value={PICK_FOR_ME} title={loginDropdownTitle(harness)} icon={Icon.Stars} />
        {(harness?.logins ?? []).map((login) => (
          <Form.Dropdown.Item
            key={login.label}
            value={login.label}
            title={login.title}
            icon={login.limited ? Icon.XMarkCircle : Icon.Person}
          />
        ))}
      </Form.Dropdown>
      {harness && !harness.installed ? (
        <Form.Description title="" text={`Not installed: ${harness.installHint}`} />
      ) : null}
      <Form.Dropdown {...itemProps.mode} title="Mode" value={values.mode || data?.defaultMode || "build"}>
        <Form.Dropdown.Item value="build" title="Build (edits files, runs commands)" icon={Icon.Hammer} />
        <Form.Dropdown.Item value="plan" title="Planner (writes a plan, changes no file)" icon={Icon.List} />
      </Form.Dropdown>
      <Form.Dropdown {...itemProps.sandbox} title="Sandbox">
        <Form.Dropdown.Item
          value=""
          title={
            data?.host
              ? `Project Default on ${data.host}`
              : `Project Default (${data?.sandbox ? "in the sandbox" : "outside"})`
          }
          icon={Icon.Gear}
        />
        <Form.Dropdown.Item
          value="on"
          title="In the Sandbox (worktree, memory, login home, its hosts)"
          icon={Icon.Lock}
        />
        <Form.Dropdown.Item value="off" title="Outside the Sandbox" icon={Icon.LockUnlocked} />
      </Form.Dropdown>
      <Form.Separator />
      <Form.TextField {...itemProps.name} title="Name" placeholder="From the task when empty" />
      <Form.Dropdown {...itemProps.base} title="Base Branch">
        <Form.Dropdown.Item value="" title="Current Branch" />
        {(data?.branches ?? []).map((branch) => (
          <Form.Dropdown.Item key={branch} value={branch} title={branch} />
        ))}
      </Form.Dropdown>
    </Form>
  );
}
