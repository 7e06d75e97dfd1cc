/** Small formatting shared by the Raycast views (the CLI has its own in src/cli/format.ts). */

/** "42s", "3m", "2h05m", "3d": how long since `fromIso`. */
export function elapsedShort(fromIso: string | undefined, now: number): string {
  if (!fromIso) return "";
  const seconds = Math.max(0, Math.round((now - Date.parse(fromIso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, "0")}m`;
  return `${Math.floor(hours / 24)}d`;
}

/** "1.2k", "45k", "1.1M". */
export function compactCount(value: number): string {
  if (value < 1_000) return String(Math.round(value));
  if (value < 10_000) return `${(value / 1_000).toFixed(1)}k`;
  if (value < 1_000_000) return `${Math.round(value / 1_000)}k`;
  return `${(value / 1_000_000).toFixed(1)}M`;
}

/** "Claude Code" -> "Claude Code"; a login label "work" -> "Work". */
export function titleCase(label: string): string {
  return label.replace(
    /(^|[-_\s])([a-z])/g,
    (_m, sep: string, ch: string) => `${sep === "" ? "" : " "}${ch.toUpperCase()}`,
  );
}

/** `text` cut to `max` characters with an ellipsis ("npm install && npm run b…"); as is when it fits. */
export function shorten(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return `${chars
    .slice(0, Math.max(0, max - 1))
    .join("")
    .trimEnd()}…`;
}
