/**
 * A word for a POSIX shell command line the user will copy or a script will run: as it is when
 * no character in it means anything to the shell, else in single quotes.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Words as one command line. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
