import fs from "node:fs/promises";
import os from "node:os";
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
 * page with headless Chromium into screens/ (git-ignored). CHROMIUM names another binary. It fails
 * unless every screen's PNG is written, whole and at the window's size (.ci/run relies on that).
 */
const OUT = path.join(PROJECT_ROOT, "screens");
const CHROMIUM = process.env.CHROMIUM ?? "chromium";

/**
 * Headless Chromium with nothing of its own running beside the page: no first-run, sync,
 * component updates, background requests or QUIC, and a new empty profile per run (never the
 * user's), so a screenshot is the page alone and a run on a CI machine asks the network nothing.
 */
function chromiumArgs(profile: string, html: string, png: string): string[] {
  return [
    "--headless",
    // Chromium's own sandbox refuses to start as root (a container); the page is our own file.
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    `--window-size=${WINDOW.width},${WINDOW.height}`,
    `--screenshot=${png}`,
    pathToFileURL(html).href,
  ];
}

async function screenshot(profile: string, html: string, png: string): Promise<void> {
  await execa(CHROMIUM, chromiumArgs(profile, html, png), {
    timeout: 60_000,
    forceKillAfterDelay: 5_000,
    maxBuffer: 1_000_000,
  });
  await checkPng(png);
}

/** Throws unless `png` is a whole PNG of the window's size: Chromium can exit 0 having written nothing. */
async function checkPng(png: string): Promise<void> {
  const bytes = await fs.readFile(png).catch(() => Buffer.alloc(0));
  if (bytes.length === 0)
    throw new Error(`${png} was not written (empty or missing): run ${CHROMIUM} by hand to see why.`);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const isPng =
    bytes.length > 33 && bytes.subarray(0, 8).equals(signature) && bytes.toString("latin1", 12, 16) === "IHDR";
  if (!isPng) throw new Error(`${png} is not a PNG (${bytes.length} bytes).`);
  const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  if (width !== WINDOW.width || height !== WINDOW.height) {
    throw new Error(`${png} is ${width} × ${height}, not Raycast's ${WINDOW.width} × ${WINDOW.height}.`);
  }
  if (!bytes.subarray(-12).toString("latin1").includes("IEND")) throw new Error(`${png} is cut short.`);
}

async function main(): Promise<void> {
  // A picture left by an earlier run must not stand in for one this run failed to take.
  await fs.rm(OUT, { recursive: true, force: true });
  await fs.mkdir(OUT, { recursive: true });
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-screens-chromium-"));
  const scene = await buildScene();
  try {
    for (const spec of SCREENS) {
      const { screen, html } = await drawScreen(spec, scene);
      screen.unmount();
      const page = path.join(OUT, `${spec.name}.html`);
      const png = path.join(OUT, `${spec.name}.png`);
      await fs.writeFile(page, html);
      await screenshot(profile, page, png);
      console.log(`${path.relative(PROJECT_ROOT, png)}: ${spec.shows}`);
    }
  } finally {
    await scene.cleanup();
    await fs.rm(profile, { recursive: true, force: true });
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
