import fs from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { execa } from "execa";
import { PROJECT_ROOT } from "../helpers/offrun.js";
import { WINDOW } from "../helpers/row-width.js";
import { SCREENS } from "./catalog.js";
import { drawScreen } from "./draw.js";
import { buildScene } from "./scene.js";

/**
 * `npm run screens`: builds scene.ts's state in a fresh HOME, renders every screen of catalog.tsx
 * through the @raycast/api stand-in into HTML laid out like Raycast's window, and screenshots each
 * page with headless Chromium into screens/ (git-ignored). CHROMIUM names another binary.
 */
const OUT = path.join(PROJECT_ROOT, "screens");
const CHROMIUM = process.env.CHROMIUM ?? "chromium";

async function screenshot(html: string, png: string): Promise<void> {
  await execa(
    CHROMIUM,
    [
      "--headless",
      // Chromium's own sandbox refuses to start as root (a container); the page is our own file.
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
      "--disable-gpu",
      "--hide-scrollbars",
      "--force-device-scale-factor=1",
      `--window-size=${WINDOW.width},${WINDOW.height}`,
      `--screenshot=${png}`,
      pathToFileURL(html).href,
    ],
    { timeout: 60_000, forceKillAfterDelay: 5_000, maxBuffer: 1_000_000 },
  );
}

async function main(): Promise<void> {
  await fs.mkdir(OUT, { recursive: true });
  const scene = await buildScene();
  try {
    for (const spec of SCREENS) {
      const { screen, html } = await drawScreen(spec, scene);
      screen.unmount();
      const page = path.join(OUT, `${spec.name}.html`);
      const png = path.join(OUT, `${spec.name}.png`);
      await fs.writeFile(page, html);
      await screenshot(page, png);
      console.log(`${path.relative(PROJECT_ROOT, png)}: ${spec.shows}`);
    }
  } finally {
    await scene.cleanup();
  }
}

main().then(
  // The commands' polls and caches keep timers: the run is over once every picture is written.
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
