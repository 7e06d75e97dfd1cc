import fs from "node:fs";
import path from "node:path";
import * as z from "zod";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Raycast's store rules for the manifest, which `ray build` does not check.
const manifest = z
  .object({
    name: z.string(),
    title: z.string(),
    description: z.string(),
    icon: z.string(),
    categories: z.array(z.string()).min(1),
    commands: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        icon: z.string(),
        mode: z.enum(["view", "no-view", "menu-bar"]),
        interval: z.string().optional(),
      }),
    ),
    preferences: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        type: z.string(),
        required: z.boolean(),
      }),
    ),
  })
  .parse(JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")));

const CATEGORIES = [
  "Applications",
  "Communication",
  "Data",
  "Design Tools",
  "Developer Tools",
  "Documentation",
  "Finance",
  "Fun",
  "Media",
  "News",
  "Productivity",
  "Security",
  "System",
  "Web",
  "Other",
];
const SMALL = new Set(["a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to", "with"]);

function isTitleCase(title: string): boolean {
  return title.split(" ").every((word, i) => (i > 0 && SMALL.has(word)) || /^[A-Z0-9]/.test(word));
}

function pngSize(file: string): { width: number; height: number } {
  const data = fs.readFileSync(file);
  expect(data.subarray(1, 4).toString("ascii")).toBe("PNG");
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function expectIcon(name: string) {
  const file = path.join(PROJECT_ROOT, "assets", name);
  expect(pngSize(file)).toEqual({ width: 512, height: 512 });
  const dark = file.replace(/\.png$/, "@dark.png");
  expect(pngSize(dark)).toEqual({ width: 512, height: 512 });
}

test("categories are Raycast's, in title case", () => {
  for (const category of manifest.categories) expect(CATEGORIES).toContain(category);
});

test("the extension and every command have a 512 px PNG icon with a dark variant", () => {
  expectIcon(manifest.icon);
  for (const command of manifest.commands) expectIcon(command.icon);
});

test("each command has its own icon, drawn apart from the extension's, in a light and a dark variant", () => {
  const read = (name: string) => fs.readFileSync(path.join(PROJECT_ROOT, "assets", name)).toString("base64");
  const icons = manifest.commands.map((c) => c.icon);
  expect(new Set(icons).size).toBe(manifest.commands.length);
  const drawings = new Set([manifest.icon, ...icons].map(read));
  expect(drawings.size).toBe(manifest.commands.length + 1);
  for (const icon of icons) {
    expect(fs.existsSync(path.join(PROJECT_ROOT, "assets", icon.replace(/\.png$/, "@dark.png")))).toBe(true);
    expect(read(icon.replace(/\.png$/, "@dark.png"))).not.toBe(read(icon));
  }
});

test("every command has a title-case title, a description and an entry file at src/<name>.tsx", () => {
  expect(manifest.commands.map((c) => c.name).sort()).toEqual(
    ["agent-accounts", "agent-quota", "agents", "project-memory", "review-changes", "start-agent"].sort(),
  );
  for (const command of manifest.commands) {
    expect(isTitleCase(command.title)).toBe(true);
    expect(command.description.length).toBeGreaterThan(20);
    expect(command.description.endsWith(".")).toBe(true);
    expect(fs.existsSync(path.join(PROJECT_ROOT, "src", `${command.name}.tsx`))).toBe(true);
  }
  const menuBar = manifest.commands.find((c) => c.mode === "menu-bar");
  expect(menuBar?.interval).toBe("1m");
});

test("preferences cover the binary paths and the speech tool, each titled and described", () => {
  const names = manifest.preferences.map((p) => p.name);
  expect(names).toEqual(
    expect.arrayContaining(["offrunPath", "claudePath", "codexPath", "recorderPath", "speechToolPath", "speechModel"]),
  );
  for (const preference of manifest.preferences) {
    expect(isTitleCase(preference.title)).toBe(true);
    expect(preference.description.endsWith(".")).toBe(true);
  }
});

test("the title-case check itself rejects lowercase words", () => {
  expect(isTitleCase("Agent quota")).toBe(false);
  expect(isTitleCase("Hand Off to Another CLI")).toBe(true);
});
