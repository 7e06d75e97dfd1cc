/** Process ids and groups, without execa: the faces use these and must start fast. */

/** Sends a signal to a whole process group; ignores a group that is already gone. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already exited
  }
}

/** True when a process with this pid exists (and is ours to signal). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
