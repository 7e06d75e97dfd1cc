import { importEsm } from "../foundation/esm-import.js";
import { OffrunError } from "../foundation/errors.js";

/** Whether agents can run sandboxed on this machine, and what is missing when they cannot. */
export interface SandboxSupport {
  available: boolean;
  /** Why the sandbox cannot run (a missing tool, an unsupported platform). */
  problems: string[];
  /** What still works, degraded (the runtime's own warnings). */
  warnings: string[];
  /** The command that installs what is missing, when Offrun knows it. */
  install?: string;
}

let checked: Promise<SandboxSupport> | undefined;

/**
 * Asks the sandbox runtime itself (bubblewrap, socat and ripgrep on Linux, sandbox-exec on macOS),
 * once per process: the answer changes only when the user installs something, and a restart of
 * the companion picks that up. The runtime is loaded only here, never on the start path of an
 * unsandboxed agent.
 */
export function sandboxSupport(): Promise<SandboxSupport> {
  checked ??= (async () => {
    try {
      const { SandboxManager } = await importEsm<typeof import("@anthropic-ai/sandbox-runtime")>(
        "@anthropic-ai/sandbox-runtime",
      );
      const { errors, warnings } = SandboxManager.checkDependencies();
      const install = errors.length > 0 ? installHint(errors) : undefined;
      return { available: errors.length === 0, problems: errors, warnings, ...(install ? { install } : {}) };
    } catch (error: unknown) {
      return { available: false, problems: [`the sandbox runtime did not load: ${String(error)}`], warnings: [] };
    }
  })();
  return checked;
}

function installHint(errors: readonly string[]): string | undefined {
  if (process.platform !== "linux") return undefined;
  const packages = [
    errors.some((e) => e.includes("bwrap")) ? "bubblewrap" : undefined,
    errors.some((e) => e.includes("socat")) ? "socat" : undefined,
    errors.some((e) => e.includes("ripgrep")) ? "ripgrep" : undefined,
  ].filter((name): name is string => name !== undefined);
  return packages.length > 0 ? `sudo apt install ${packages.join(" ")}` : undefined;
}

/** Throws, saying what to install, when an agent asked for the sandbox and this machine cannot give it. */
export async function assertSandboxAvailable(): Promise<void> {
  const support = await sandboxSupport();
  if (support.available) return;
  const fix = support.install ? ` Install it with \`${support.install}\`, then try again.` : "";
  throw new OffrunError(
    "not_installed",
    `The sandbox cannot run here: ${support.problems.join("; ")}.${fix} Offrun never runs a sandboxed agent without it.`,
  );
}
