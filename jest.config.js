/** Jest runs the TypeScript sources as ES modules (execa and chokidar are ESM-only). */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts", ".tsx"],
  moduleNameMapper: {
    "^(\\.{1,2}/.*)\\.js$": "$1",
    // @raycast/api exists only inside Raycast: tests get the one stand-in (test/helpers/raycast-api.ts).
    "^@raycast/api$": "<rootDir>/test/helpers/raycast-api.ts",
  },
  transform: {
    "^.+\\.tsx?$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json" }],
  },
  modulePathIgnorePatterns: [
    "<rootDir>/dist/",
    "<rootDir>/build/",
    "<rootDir>/assets/offrun-cli/",
    "<rootDir>/.test-clis/",
  ],
  setupFilesAfterEnv: ["<rootDir>/test/helpers/isolate-env.ts", "<rootDir>/test/helpers/matchers.ts"],
  testMatch: ["<rootDir>/test/**/*.test.ts", "<rootDir>/test/**/*.test.tsx"],
  testTimeout: 60_000,
  // Jest's summary, then one plain closing line that CI reads as the count (test/helpers/closing-line.js).
  reporters: ["default", "<rootDir>/test/helpers/closing-line.js"],
};
