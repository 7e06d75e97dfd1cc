import { listHarnesses } from "../../harnesses/registry.js";
import type { Harness } from "../../harnesses/types.js";
import type { Login } from "../foundation/login-model.js";
import { loginProcessEnv, findLogin, listLogins } from "./store.js";
import { pickLogin, type Candidate, type Pick } from "./ranking.js";
import { OffrunError } from "../foundation/errors.js";
import { limitedUntilText } from "../foundation/time-words.js";
import { locateBinary } from "../foundation/binaries.js";
import { loginKey } from "../quota/ledger.js";
import { cachedLoginQuota, headroom } from "../quota/pipeline.js";
import { cachedSignIns, checkSignIn, signInKey } from "./sign-in.js";

/** Which login a turn runs on, chosen before dispatch. Reads only Offrun's quota cache: no CLI is asked. */
export class LoginPicker {
  /** Turns running (or about to) per login: concurrent starts spread instead of piling onto one. */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  async candidates(harness: Harness): Promise<Candidate[]> {
    const logins = await listLogins(harness, this.env);
    const now = new Date();
    const [signIns, quotas] = await Promise.all([
      cachedSignIns(logins),
      Promise.all(logins.map((login) => cachedLoginQuota(login, now))),
    ]);
    return logins.map((login, index) => ({
      login,
      quota: quotas[index]!,
      signIn: signIns.get(signInKey(login)),
    }));
  }

  /**
   * The pinned login (refused when signed out, or when limited unless forced), or the one with the
   * most headroom. A pinned login the cache calls signed out is asked again first: the user may have
   * just signed in.
   */
  async choose(
    harness: Harness,
    options: { label?: string; force?: boolean; exclude?: ReadonlySet<string>; prefer?: string },
  ): Promise<Pick> {
    if (options.label !== undefined) {
      const login = await findLogin(harness, options.label, this.env);
      const cached = (await cachedSignIns([login])).get(signInKey(login));
      if (cached?.state === "signed-out") {
        const binary = await locateBinary(harness.id, harness.binaryName, this.env);
        const fresh = cached.source === "home" ? cached : await checkSignIn(login, harness, binary, this.env);
        if (fresh.state === "signed-out") {
          throw new OffrunError(
            "not_logged_in",
            `Login '${login.label}' of ${harness.displayName} is not signed in (${fresh.note ?? "its CLI says so"}). Sign in with \`offrun logins login ${harness.id} ${login.label}\`, or leave out --login to let Offrun pick a signed-in login.`,
          );
        }
      }
      const quota = await cachedLoginQuota(login);
      if (headroom(quota) === 0 && !options.force) {
        throw new OffrunError(
          "usage_limit",
          `Login '${login.label}' of ${harness.displayName} is ${limitedUntilText(quota.limitedUntil, Date.now())}. Pick another login, leave out --login to let Offrun pick, or pass --force.`,
        );
      }
      return { login, quota, ranking: [{ label: login.label, room: headroom(quota) }] };
    }
    const candidates = await this.candidates(harness);
    return pickLogin(harness, candidates, {
      inFlight: this.inFlight,
      exclude: options.exclude,
      force: options.force,
      prefer: options.prefer,
    });
  }

  /** Counts a turn on a login until the returned function is called. */
  hold(login: Login): () => void {
    const key = loginKey(login);
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.inFlight.get(key) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(key);
      else this.inFlight.set(key, left);
    };
  }

  /** The environment of a login's processes: the relocation variable and its extra env. */
  processEnv(login: Login, harness: Harness): NodeJS.ProcessEnv {
    return { ...this.env, ...loginProcessEnv(login, harness) };
  }

  /** "Codex has room (login work, 40% left)": for the message when every login of a harness is out. */
  async roomElsewhere(except: Harness, agent: string): Promise<string | undefined> {
    for (const harness of await listHarnesses({ env: this.env, tolerant: true })) {
      if (harness.id === except.id) continue;
      if (!(await locateBinary(harness.id, harness.binaryName, this.env))) continue;
      const candidates = await this.candidates(harness).catch(() => []);
      const best = candidates
        .filter((c) => c.signIn?.state !== "signed-out")
        .map((c) => ({ label: c.login.label, room: headroom(c.quota) }))
        .filter((c) => c.room !== 0)
        .sort((a, b) => (b.room ?? -1) - (a.room ?? -1))[0];
      if (best) {
        const room = best.room === undefined ? "room unknown" : `${Math.round(best.room)}% left`;
        return `${harness.displayName} has room (login ${best.label}, ${room}): \`offrun handoff ${agent} --harness ${harness.id}\``;
      }
    }
    return undefined;
  }
}
