/**
 * The Node flags the companion runs with, on each way Offrun starts it: a face's detached start
 * (the CLI, Raycast with a Node path) and the launcher that the login service and Raycast run
 * (src/core/setup/launcher.ts). V8 reads them only when Node starts, so they are on the command line.
 *
 * `--max-semi-space-size=2`: the companion lives for days and allocates in small bursts (a
 * transcript line, a snapshot write); V8's young generation grows to 32 MB of semi-spaces on the
 * first busy second and keeps them, a quarter of the companion's memory. At 2 MB it stays near
 * 93 MB instead of 120-125 MB while watching 5,000 session files, with the same notification
 * latency (bench/notify-watch.ts).
 */
export const COMPANION_NODE_FLAGS = ["--max-semi-space-size=2"] as const;
