import { listHarnesses } from "../../harnesses/registry.js";
import { listLogins } from "./store.js";
import { locateBinary } from "../foundation/binaries.js";
import { describeError } from "../foundation/errors.js";
import { checkSignIn } from "./sign-in.js";

/** Sign-ins change rarely and a status command costs a process: a look every so often is enough. */
const EVERY_MS = 15 * 60_000;

/**
 * Keeps `~/.offrun/cache/sign-in.json` current in the companion: every login of every CLI is
 * checked at start and then every 15 minutes, one CLI after another (each check time-boxed), so
 * that picks never wait on a status command. A check that fails is logged, never fatal.
 */
export function watchSignIns(options: { env: NodeJS.ProcessEnv; log: (line: string) => void }): {
  ready: Promise<void>;
  close(): void;
} {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const round = async () => {
    const harnesses = await listHarnesses({ env: options.env, tolerant: true });
    for (const harness of harnesses) {
      if (closed) return;
      const binary = await locateBinary(harness.id, harness.binaryName, options.env);
      const logins = await listLogins(harness, options.env).catch(() => []);
      await Promise.all(
        logins.map((login) =>
          checkSignIn(login, harness, binary, options.env).catch((error: unknown) =>
            options.log(`sign-in of ${harness.id}/${login.label} could not be checked: ${describeError(error)}`),
          ),
        ),
      );
    }
  };
  const loop = async () => {
    await round().catch((error: unknown) => options.log(`sign-in check: ${describeError(error)}`));
    if (!closed) timer = setTimeout(() => void loop(), EVERY_MS);
  };
  const ready = loop();
  return {
    ready,
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
