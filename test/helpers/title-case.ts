/**
 * US English and Apple title case for what the commands show. Raycast's Store asks for both
 * (developers.raycast.com "Prepare an Extension for Store": US English; Apple's title case for
 * command, action and section titles), and `ray lint` checks only the literal titles it sees,
 * with a word list that lowercases a phrasal verb's particle ("Sign in"), which Apple capitalizes.
 */

/**
 * The words Apple's style guide lowercases inside a title: articles, coordinating conjunctions, and
 * prepositions of four letters or fewer ("Capitalize every word except ... prepositions of four or
 * fewer letters"), the same set as `@raycast/eslint-plugin`'s title-case.js plus "via".
 */
const MINOR = new Set(
  "a an the and but or nor for yet so as at by from in into of off on onto out over to up via with".split(" "),
);

/**
 * Phrasal verbs: their particle is part of the verb and is capitalized ("Sign In with Terminal",
 * "Hand Off to Another CLI…", "Set Up").
 */
const PHRASAL = new Set(["sign in", "sign out", "hand off", "log in", "log out", "set up", "start over", "look up"]);

/** Words that are written one way whatever the case rule says. */
const FIXED = new Map(
  ["CLI", "CLIs", "SSH", "URL", "ID", "AI", "PR", "JSON", "macOS", "npm", "git", "Git", "GitHub", "VS", "API"].map(
    (word) => [word.toLowerCase(), word],
  ),
);

/** Only the letters of a word ("Files…" is "Files"); empty for a number or a symbol. */
const lettersOf = (word: string) => word.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");

/**
 * What is wrong with `title` as an Apple title-case title, one sentence per word, or nothing. A word
 * that looks like code or a value (a path, a command, an email, a number) is the user's, not ours.
 */
export function titleCaseBreaches(title: string): string[] {
  // A gloss in parentheses ("Build (edits files, runs commands)") is a phrase, not part of the title.
  const words = title
    .replace(/\([^)]*\)/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "");
  const breaches: string[] = [];
  words.forEach((raw, index) => {
    const word = lettersOf(raw);
    if (word === "" || /[/\\@._=`$*(){}[\]<>0-9]/.test(raw.replace(/[.…:?!,]+$/, ""))) return;
    const lower = word.toLowerCase();
    const fixed = FIXED.get(lower);
    if (fixed !== undefined) {
      if (word !== fixed) breaches.push(`"${title}": "${word}" should be written "${fixed}"`);
      return;
    }
    const previous = lettersOf(words[index - 1] ?? "").toLowerCase();
    const isParticle = PHRASAL.has(`${previous} ${lower}`);
    const isEdge = index === 0 || index === words.length - 1 || /:$/.test(words[index - 1] ?? "");
    const shouldBeMinor = MINOR.has(lower) && !isParticle && !isEdge;
    const isCapital = word[0] !== word[0]!.toLowerCase();
    if (shouldBeMinor && isCapital) breaches.push(`"${title}": "${word}" should be lowercase`);
    if (!shouldBeMinor && !isCapital) breaches.push(`"${title}": "${word}" should be capitalized`);
  });
  return breaches;
}

/** British spellings and their US forms; matched at the start of a word, any case. */
const BRITISH: [RegExp, string][] = [
  [/\bcolour/i, "color"],
  [/\bfavourite/i, "favorite"],
  [/\bbehaviour/i, "behavior"],
  [/\blicence\b/i, "license"],
  [/\bcancell(ed|ing)\b/i, "canceled, canceling"],
  [
    /\b(organ|author|recogn|initial|custom|normal|summar|priorit|serial|real|optim|util|minim|maxim)is(e|ed|es|ing|ation)\b/i,
    "-ize",
  ],
  [/\banalys(e|ed|ing)\b/i, "analyze"],
  [/\bcentre/i, "center"],
  [/\bcatalogue/i, "catalog"],
  [/\bgrey\b/i, "gray"],
  [/\b(travel|label|model|signal)l(ed|ing)\b/i, "one l"],
  [/\b(whilst|amongst)\b/i, "while, among"],
  [/\bjudgement/i, "judgment"],
  [/\bprogramme\b/i, "program"],
  [/\bdefence\b/i, "defense"],
  [/\bmum\b/i, "mom"],
];

/** The British spellings in `text`, each with its US form. */
export function usSpellingBreaches(text: string): string[] {
  return BRITISH.flatMap(([pattern, us]) => {
    const found = pattern.exec(text);
    return found ? [`"${found[0]}" in "${text}" is US "${us}"`] : [];
  });
}
