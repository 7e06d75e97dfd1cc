import { Action, ActionPanel, Detail, Icon, showToast, Toast, useNavigation } from "@raycast/api";
import path from "node:path";
import { loadProjectSettings } from "../../core/foundation/project.js";
import { describeGated, trustRepository } from "../../core/foundation/trust.js";
import { visibleJson } from "../../core/foundation/visible.js";
import { showFailure } from "./failure.js";

/**
 * What a repository's settings would run, read before trusting them (as `offrun trust` shows it),
 * and the one action that trusts them as they are now.
 */
export function TrustRepository(props: {
  root: string;
  settings: ReturnType<typeof describeGated>;
  onTrusted: () => void;
}) {
  const { pop } = useNavigation();
  const { settings } = props;
  const markdown = [
    `# Trust ${path.basename(props.root)}?`,
    `\`${props.root}/.offrun/config.json\` names settings that run or widen something. They take effect only once you trust them, and are asked again when they change.`,
    ...settings.map(
      ({ key, value, effect }) =>
        `## ${key}\n${effect}:\n\n\`\`\`json\n${visibleJson(value, 2).replace(/```/g, "'''")}\n\`\`\``,
    ),
  ].join("\n\n");
  return (
    <Detail
      markdown={markdown}
      actions={
        <ActionPanel>
          <Action
            title="Trust These Settings"
            icon={Icon.CheckCircle}
            onAction={async () => {
              try {
                // What is trusted is the file as it is now: only if it is still what this view showed.
                const { raw } = await loadProjectSettings(props.root);
                const now = describeGated(raw).filter(({ key }) => settings.some((shown) => shown.key === key));
                if (JSON.stringify(now) !== JSON.stringify(settings)) {
                  throw new Error("The settings changed while you read them: open this view again to see them.");
                }
                await trustRepository(props.root, raw);
                await showToast({ style: Toast.Style.Success, title: "Repository Trusted" });
                props.onTrusted();
                pop();
              } catch (error) {
                await showFailure(error, "Cannot Trust Repository");
              }
            }}
          />
        </ActionPanel>
      }
    />
  );
}
