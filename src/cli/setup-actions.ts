import { setUpOffrun, type SetupStep } from "../core/setup/set-up.js";
import { setupPlan } from "../core/setup/plan.js";
import { output, packageRoot, type GlobalOptions } from "./output.js";

/** offrun setup: what Set Up Offrun does in Raycast, with this offrun's own package. */

const MARKS: Record<SetupStep["status"], string> = { done: "✓", warning: "!", failed: "✗", skipped: "-" };

export async function setup(options: GlobalOptions & { dryRun?: boolean }): Promise<void> {
  // This offrun where it is: npm and Homebrew upgrade it in place, and the service follows.
  if (options.dryRun) {
    const plan = await setupPlan({ source: packageRoot, env: process.env, inPlace: true });
    output(options, { plan }, () =>
      [
        "offrun setup would do this (nothing is written now):",
        ...plan.map((entry) => `  ${entry.action.padEnd(5)} ${entry.path ? `${entry.path}  ` : ""}${entry.detail}`),
        "Run `offrun setup` to do it.",
      ].join("\n"),
    );
    return;
  }
  const result = await setUpOffrun({ source: packageRoot, env: process.env, inPlace: true });
  output(options, result, () =>
    [
      ...result.steps.map((step) => `${MARKS[step.status]} ${step.title}: ${step.detail}`),
      result.ok
        ? `Set up: ${result.launcher} is offrun.`
        : "Not set up: fix the step marked ✗ and run `offrun setup` again.",
    ].join("\n"),
  );
  if (!result.ok) process.exitCode = 1;
}
