/**
 * What of the environment any CLI needs: where programs are, who and where the user is, the
 * terminal, the locale, temp folders, the certificates a company proxy adds. Nothing else of the
 * companion's environment enters a turn (its `GITHUB_TOKEN`, cloud keys, agent sockets).
 */
export const COMMON_VARIABLES = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "TERM_PROGRAM",
  "COLORTERM",
  "COLUMNS",
  "LINES",
  "NO_COLOR",
  "FORCE_COLOR",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "TZ",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_*",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Where git finds the user's identity and settings, for the agent's own commits.
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_AUTHOR_*",
  "GIT_COMMITTER_*",
  // Offrun's own, for the CLI's hooks to tell the agent's session from the user's (no secret).
  "OFFRUN_AGENT",
  "OFFRUN_PORT",
] as const;

/** `env` with only the variables `allowed` names (a name, or a prefix ending in `*`) and the common ones. */
export function sandboxEnvironment(env: NodeJS.ProcessEnv, allowed: readonly string[]): NodeJS.ProcessEnv {
  const patterns = [...COMMON_VARIABLES, ...allowed];
  const exact = new Set(patterns.filter((pattern) => !pattern.endsWith("*")));
  const prefixes = patterns.filter((pattern) => pattern.endsWith("*")).map((pattern) => pattern.slice(0, -1));
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => value !== undefined && (exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))),
    ),
  );
}
