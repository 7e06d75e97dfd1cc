/**
 * Schemas built on first use. zod builds a schema when the code that defines it runs, and in a
 * process that lives for a tenth of a second (every `offrun` command, every Raycast command)
 * building the few hundred schemas of the protocol and the chat log took about a fifth of the
 * start, while a command parses with a handful of them. Modules that define many keep them behind
 * these (tables of them) or `z.lazy` (one schema, or a group built together), so that only what a
 * command parses is built (bench/remote-ls.ts measures it).
 */

/** A value built on the first call and kept. */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}

/** A table (a request name to its schema, say) whose entries are built on first read. */
export type LazyTable<T extends Record<string, () => unknown>> = { readonly [K in keyof T]: ReturnType<T[K]> };

/**
 * A table of `makers`, each entry built once, when it is first read. `Object.keys` lists every
 * entry without building any; spreading one builds them all (join tables with `joinTables`).
 */
export function lazyTable<T extends Record<string, () => unknown>>(makers: T): LazyTable<T> {
  const table = {};
  for (const key of Object.keys(makers)) {
    const entry = once(makers[key]!);
    Object.defineProperty(table, key, { enumerable: true, get: entry });
  }
  return table as LazyTable<T>;
}

/** Tables joined into one, their entries still unbuilt (and each built once, whichever table it is read from). */
export function joinTables<A extends object, B extends object, C extends object>(a: A, b: B, c: C): A & B & C {
  const joined = {};
  for (const table of [a, b, c]) Object.defineProperties(joined, Object.getOwnPropertyDescriptors(table));
  return joined as A & B & C;
}
