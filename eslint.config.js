import raycastConfig from "@raycast/eslint-config";

export default [
  { ignores: ["node_modules/", "build/", "dist/", ".test-clis/", "test/fixtures/", "raycast-env.d.ts"] },
  ...raycastConfig,
];
