/**
 * Everyday English words that show up in prompts as prose. An identifier built only from these
 * (`forEach`, `isValid`, `toString`, `read-only`, `end-to-end`) would rewrite ordinary sentences
 * ("make sure it is valid"), so a code phrase needs at least two words outside this list to be
 * rewritten (see words.ts). Programming nouns (file, test, user, config, handler) are left out on
 * purpose: they are what makes a phrase name something in the code.
 */
const WORDS = `
a about above after again against all almost also always am an and another any anything are
around as ask at away back bad be because been before being below best better between big both
but by call came can cannot case come could day did do does doing done down during each early
either else end enough even ever every few find first for from full get gets give go going good
got great had has have having he her here him his how i if in into is it its just keep kind
know last late least left less let like little long look made make many may me might more most
much must my need never new next no none nor not now of off often old on once one only open or
other our out over own part place please put quite rather read real really right run said same
say see seem set she should show side since small so some something soon still such sure take
than that the their them then there these they thing things think this those though through
thus time to too top try turn two under until up upon us use used very want was way we well
went were what when where whether which while who why will with within without would yes yet
you your true false date only way first second third last next before after end start
`;

export const COMMON_WORDS: ReadonlySet<string> = new Set(WORDS.split(/\s+/).filter((word) => word !== ""));
