/** Jest runs the TypeScript sources as ES modules (execa and chokidar are ESM-only). */
export default {
  testEnvironment: "node",
  extensionsToTreatAsEsm: [".ts", ".tsx"],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: {
    "^.+\\.tsx?$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json" }],
  },
  modulePathIgnorePatterns: ["<rootDir>/dist/", "<rootDir>/build/", "<rootDir>/.test-clis/"],
  setupFilesAfterEnv: ["<rootDir>/test/helpers/isolate-env.ts"],
  testMatch: ["<rootDir>/test/**/*.test.ts"],
  testTimeout: 60_000,
};
