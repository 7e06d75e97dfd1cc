import path from "node:path";
import raycastConfig from "@raycast/eslint-config";

/*
 * The layers of docs/development.md ("Where a change goes"), enforced: imports run one way, faces
 * (src/commands, src/cli) -> core services (src/core/*, in CORE_ORDER among themselves) -> the
 * harness registry and adapters (src/harnesses) -> core foundations (src/core/foundation). Every
 * import inside src is relative, so the rules match the specifier as written.
 */
const face = { regex: "(^|/)(commands|cli)/", message: "The core and the adapters never import a face." };
const raycast = [
  { regex: "^@raycast/", message: "The core runs under plain Node: no @raycast/api here." },
  { regex: "^react($|/)", message: "The core runs under plain Node: no React here." },
];

/** One no-restricted-imports rule from a list of regex patterns. */
const restrict = (...patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

/**
 * `import { z } from "zod"` makes esbuild keep all of zod (every locale) in the chunk each CLI
 * command loads: 756 KB instead of 205 KB, about 25 ms of every `offrun` start (scripts/build-cli.mjs).
 */
const zodImport = {
  selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
  message: 'Import zod as `import * as z from "zod"` (see scripts/build-cli.mjs).',
};
/** The first `localeCompare` loads ICU's collator: about 8 ms of a command's start (foundation/text-order.ts). */
const noLocaleCompare = {
  selector: "CallExpression[callee.property.name='localeCompare']",
  message:
    "Order with byCodeUnits (src/core/foundation/text-order.ts): localeCompare loads ICU's collator on its first call, about 8 ms of a command's start.",
};
const zodNamespace = {
  files: ["**/*.ts", "**/*.tsx"],
  rules: { "no-restricted-syntax": ["error", zodImport, noLocaleCompare] },
};

/**
 * A repository's `.offrun/config.json` is input: its settings that run or widen anything apply
 * only once the user trusted them, and one function reads it for every consumer
 * (loadProjectSettings in src/core/foundation/project.ts). Anything else that opens the file, or
 * parses it with the full schema, would read those settings untrusted.
 */
const oneSettingsReader = {
  files: ["src/**/*.ts", "src/**/*.tsx"],
  ignores: ["src/core/foundation/project.ts", "src/core/foundation/model.ts"],
  rules: {
    "no-restricted-syntax": [
      "error",
      zodImport,
      noLocaleCompare,
      {
        selector: "MemberExpression[property.name='config'][object.callee.name='projectPaths']",
        message: "Read a project's settings with loadProjectSettings (foundation/project.ts): it applies trust.",
      },
      {
        selector: "Identifier[name='projectConfigSchema']",
        message: "Read a project's settings with loadProjectSettings (foundation/project.ts): it applies trust.",
      },
    ],
  },
};

/**
 * The rooms of src/core from the top down (the table in docs/development.md, "Where a change
 * goes"): a folder imports only the folders after it, `import type` included, so no two rooms lean
 * on each other. A new folder goes into this list where its imports put it.
 */
export const CORE_ORDER = [
  "setup",
  "companion",
  "review",
  "agents",
  "remote",
  "notify",
  "memory",
  "sandbox",
  "logins",
  "records",
  "protocol",
  "quota",
  "vocabulary",
  "git",
  "dictation",
  "hooks",
  "foundation",
];

const coreFolder = (file) => /(?:^|\/)src\/core\/([^/]+)\//.exec(file.replaceAll("\\", "/"))?.[1];

/** Refuses an import (a declaration, `export … from`, `import()` or an `import("…")` type) that runs up CORE_ORDER. */
const coreOrder = {
  meta: {
    type: "problem",
    schema: [],
    messages: {
      upward:
        "core/{{from}} may import only the core folders below it ({{below}}): core/{{to}} is above it. " +
        "Move what both need down, or the caller up (the order is CORE_ORDER in eslint.config.js).",
      unknown: "core/{{folder}} is in no place of CORE_ORDER (eslint.config.js): add it where its imports put it.",
    },
  },
  create(context) {
    const from = coreFolder(context.filename);
    if (from === undefined) return {};
    const rank = CORE_ORDER.indexOf(from);
    const check = (node, source) => {
      if (typeof source?.value !== "string" || !source.value.startsWith(".")) return;
      const to = coreFolder(path.join(path.dirname(context.filename), source.value));
      if (to === undefined || to === from) return;
      if (rank < 0) context.report({ node, messageId: "unknown", data: { folder: from } });
      else if (!CORE_ORDER.includes(to)) context.report({ node, messageId: "unknown", data: { folder: to } });
      else if (CORE_ORDER.indexOf(to) < rank) {
        const below = CORE_ORDER.slice(rank + 1).join(", ") || "none";
        context.report({ node, messageId: "upward", data: { from, to, below } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal),
    };
  },
};

const layers = [
  {
    files: ["src/core/**/*.ts"],
    plugins: { offrun: { rules: { "core-order": coreOrder } } },
    rules: { "offrun/core-order": "error" },
  },
  {
    files: ["src/core/**/*.ts"],
    rules: restrict(face, ...raycast, {
      regex: "(^|/)harnesses/(?!registry\\.js$|types\\.js$)",
      message: "A core service reaches a CLI only through src/harnesses/registry.ts (and its types).",
    }),
  },
  {
    files: ["src/core/foundation/**/*.ts"],
    rules: restrict(face, ...raycast, {
      regex: "^\\.\\./",
      message: "Foundations import only each other (and packages): nothing above them.",
    }),
  },
  {
    files: ["src/harnesses/**/*.ts"],
    rules: restrict(
      face,
      ...raycast,
      {
        regex: "(^|/)core/(?!foundation/)",
        message: "An adapter imports only the core's foundations (src/core/foundation).",
      },
      {
        regex: "^\\.\\./registry\\.js$",
        message: "An adapter never imports the registry: the registry imports the adapters.",
      },
    ),
  },
  {
    files: ["src/cli/**/*.ts"],
    rules: restrict(...raycast, {
      regex: "(^|/)commands/",
      message: "The CLI and the Raycast commands are separate faces.",
    }),
  },
  {
    files: ["src/commands/presenters/**/*.ts", "src/commands/presenters/**/*.tsx"],
    rules: restrict(
      { regex: "(^|/)cli/", message: "The Raycast commands and the CLI are separate faces." },
      {
        regex: "^@raycast/",
        message: "A presenter is plain data for the view: no @raycast/api, so tests need no stand-in.",
      },
      { regex: "^react($|/)", message: "A presenter is plain data for the view: no React, so tests need no stand-in." },
    ),
  },
  {
    files: ["src/commands/**/*.ts", "src/commands/**/*.tsx"],
    ignores: ["src/commands/presenters/**"],
    rules: restrict({ regex: "(^|/)cli/", message: "The Raycast commands and the CLI are separate faces." }),
  },
];

/*
 * Adapters stay apart. A file in an adapter folder (src/harnesses/<cli>/) imports only its own
 * folder, src/harnesses/shared, src/harnesses/types.ts (with sandbox-types.ts) and the core
 * foundation (the layer rule above); what two adapters need goes to src/harnesses/shared, which
 * imports no adapter either. One folder is built on: src/harnesses/acp, the ACP client, which an
 * agent that speaks ACP (Grok Build) runs on, and which is held to the rule itself. This is
 * typescript-eslint's copy of no-restricted-imports, so that it adds to the layer rule instead of
 * replacing it (flat config keeps the last options given to one rule name).
 */
const apartMessage =
  "An adapter imports only its own folder, src/harnesses/shared, src/harnesses/types.ts and the core's foundations: move what two adapters share to src/harnesses/shared.";
const apart = (built) => [
  { regex: `^\\.\\./(?!shared/|${built}(sandbox-)?types\\.js$|registry\\.js$|\\.\\./)`, message: apartMessage },
  { regex: "^\\.\\./\\.\\./(?!core/)", message: apartMessage },
];
const adapterBoundaries = [
  {
    files: ["src/harnesses/*/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: apart("acp/|") }] },
  },
  {
    files: ["src/harnesses/acp/**/*.ts", "src/harnesses/shared/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: apart("") }] },
  },
];

/** bin/offrun.js is CommonJS (bin/package.json): a start through Node's ESM loader is slower. */
const commonJsEntry = {
  files: ["bin/**/*.js"],
  languageOptions: { sourceType: "commonjs" },
  rules: { "@typescript-eslint/no-require-imports": "off" },
};

export default [
  {
    ignores: [
      "node_modules/",
      "build/",
      "dist/",
      "pack/",
      "assets/offrun-cli/",
      ".test-clis/",
      "test/fixtures/",
      "raycast-env.d.ts",
    ],
  },
  ...raycastConfig,
  ...layers,
  ...adapterBoundaries,
  zodNamespace,
  oneSettingsReader,
  commonJsEntry,
];
