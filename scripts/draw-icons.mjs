#!/usr/bin/env node
// Draws the extension's 512x512 PNG icons (light and dark variants) with zlib alone: a rounded
// square with three parallel lanes (agents side by side, each in its own worktree) and a dot at
// the end of each. Run: node scripts/draw-icons.mjs (writes assets/*.png).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const SIZE = 512;

function crc32(buffer) {
  let crc = ~0;
  for (const byte of buffer) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const rows = Buffer.alloc((SIZE * 4 + 1) * SIZE);
  for (let y = 0; y < SIZE; y++) {
    rows[y * (SIZE * 4 + 1)] = 0;
    pixels.copy(rows, y * (SIZE * 4 + 1) + 1, y * SIZE * 4, (y + 1) * SIZE * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** Coverage of a pixel by a shape given as a signed distance (negative inside), antialiased over one pixel. */
const cover = (distance) => Math.max(0, Math.min(1, 0.5 - distance));

function roundedSquare(x, y, inset, radius) {
  const half = SIZE / 2 - inset;
  const dx = Math.abs(x - SIZE / 2) - (half - radius);
  const dy = Math.abs(y - SIZE / 2) - (half - radius);
  return Math.hypot(Math.max(dx, 0), Math.max(dy, 0)) + Math.min(Math.max(dx, dy), 0) - radius;
}

function capsule(x, y, x1, x2, cy, r) {
  const px = Math.max(x1, Math.min(x2, x));
  return Math.hypot(x - px, y - cy) - r;
}

function segment(x, y, x1, y1, x2, y2, r) {
  const vx = x2 - x1;
  const vy = y2 - y1;
  const t = Math.max(0, Math.min(1, ((x - x1) * vx + (y - y1) * vy) / (vx * vx + vy * vy)));
  return Math.hypot(x - (x1 + t * vx), y - (y1 + t * vy)) - r;
}

const circle = (x, y, cx, cy, r) => Math.hypot(x - cx, y - cy) - r;
const ring = (x, y, cx, cy, r, width) => Math.abs(Math.hypot(x - cx, y - cy) - r) - width / 2;

function box(x, y, x1, y1, x2, y2, radius) {
  const dx = Math.abs(x - (x1 + x2) / 2) - ((x2 - x1) / 2 - radius);
  const dy = Math.abs(y - (y1 + y2) / 2) - ((y2 - y1) / 2 - radius);
  return Math.hypot(Math.max(dx, 0), Math.max(dy, 0)) + Math.min(Math.max(dx, dy), 0) - radius;
}

/** A filled triangle (counter-clockwise or not), as a signed distance. */
function triangle(x, y, points) {
  let inside = true;
  let distance = Infinity;
  for (let i = 0; i < 3; i++) {
    const [ax, ay] = points[i];
    const [bx, by] = points[(i + 1) % 3];
    const [cx, cy] = points[(i + 2) % 3];
    distance = Math.min(distance, segment(x, y, ax, ay, bx, by, 0));
    const side = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    const opposite = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (side * opposite < 0) inside = false;
  }
  return inside ? -distance : distance;
}

/**
 * Each icon is a list of shapes over the plate, painted in order: [signed distance, "ink" | "accent"].
 * The extension's icon: three parallel lanes (agents side by side, each in its own worktree), a
 * dot at the end of each. Each command's icon keeps the ink-and-accent look with its own figure.
 */
const FIGURES = {
  extension: (x, y) =>
    [
      { y: 176, end: 360 },
      { y: 256, end: 300 },
      { y: 336, end: 400 },
    ].flatMap((l) => [
      [capsule(x, y, 112, l.end - 40, l.y, 18), "ink"],
      [Math.hypot(x - l.end, y - l.y) - 30, "accent"],
    ]),
  // Start Agent: one lane setting off, with a play mark ahead of it.
  "start-agent": (x, y) => [
    [capsule(x, y, 112, 220, 256, 18), "ink"],
    [
      triangle(x, y, [
        [262, 160],
        [262, 352],
        [412, 256],
      ]),
      "accent",
    ],
  ],
  // Dictate Task: a microphone, the part that hears in the accent.
  "dictate-task": (x, y) => [
    [segment(x, y, 256, 148, 256, 244, 58), "accent"],
    [y < 236 ? Infinity : ring(x, y, 256, 236, 104, 26), "ink"],
    [segment(x, y, 256, 340, 256, 392, 13), "ink"],
    [capsule(x, y, 192, 320, 396, 14), "ink"],
  ],
  // Agents: a list, one status dot per row.
  agents: (x, y) =>
    [168, 256, 344].flatMap((row, i) => [
      [circle(x, y, 142, row, 26), i === 0 ? "accent" : "ink"],
      [capsule(x, y, 204, 392, row, 16), "ink"],
    ]),
  // Agent Quota: a gauge, most of it used.
  "agent-quota": (x, y) => {
    const angle = Math.atan2(y - 256, x - 256);
    // Open at the bottom; the used share (from the lower left, clockwise) is the accent.
    const opening = Math.abs(angle - Math.PI / 2) < Math.PI / 4;
    const used = angle > Math.PI / 2 + Math.PI / 4 || angle < -Math.PI / 6;
    const band = opening ? Infinity : ring(x, y, 256, 256, 136, 44);
    return [
      [band, used ? "accent" : "ink"],
      [segment(x, y, 256, 256, 330, 190, 14), "ink"],
      [circle(x, y, 256, 256, 28), "ink"],
    ];
  },
  // Review Changes: a magnifier over a changed line.
  "review-changes": (x, y) => [
    [capsule(x, y, 150, 250, 230, 14), "accent"],
    [ring(x, y, 214, 222, 104, 34), "ink"],
    [segment(x, y, 292, 300, 396, 404, 26), "ink"],
  ],
  // Project Memory: a page of notes with a bookmark.
  "project-memory": (x, y) => [
    [Math.abs(box(x, y, 136, 104, 376, 408, 28)) - 16, "ink"],
    ...[200, 256, 312].map((row) => [capsule(x, y, 188, 324, row, 12), "ink"]),
    [
      Math.max(
        box(x, y, 300, 90, 348, 190, 6),
        -triangle(x, y, [
          [300, 192],
          [348, 192],
          [324, 160],
        ]),
      ),
      "accent",
    ],
  ],
  // Agent Accounts: two people, the one in front signed in.
  "agent-accounts": (x, y) => [
    [circle(x, y, 324, 204, 44), "ink"],
    [Math.max(circle(x, y, 324, 380, 84), y - 380), "ink"],
    [circle(x, y, 214, 226, 54), "accent"],
    [Math.max(circle(x, y, 214, 400, 100), y - 400), "accent"],
  ],
  // Set Up Offrun: an arrow coming down into a tray, the arrow in the accent.
  "set-up-offrun": (x, y) => [
    [segment(x, y, 256, 112, 256, 272, 22), "accent"],
    [
      triangle(x, y, [
        [180, 248],
        [332, 248],
        [256, 332],
      ]),
      "accent",
    ],
    [segment(x, y, 128, 312, 128, 392, 20), "ink"],
    [segment(x, y, 384, 312, 384, 392, 20), "ink"],
    [capsule(x, y, 128, 384, 392, 20), "ink"],
  ],
};

function draw({ background, lane, dot, transparentOutside }, figure) {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const cx = x + 0.5;
      const cy = y + 0.5;
      const plate = cover(roundedSquare(cx, cy, 24, 96));
      let rgb = background;
      for (const [distance, paint] of figure(cx, cy)) {
        const a = cover(distance) * plate;
        const color = paint === "accent" ? dot : lane;
        rgb = rgb.map((c, i) => c * (1 - a) + color[i] * a);
      }
      const o = (y * SIZE + x) * 4;
      pixels[o] = Math.round(rgb[0]);
      pixels[o + 1] = Math.round(rgb[1]);
      pixels[o + 2] = Math.round(rgb[2]);
      pixels[o + 3] = Math.round(255 * (transparentOutside ? plate : 1));
    }
  }
  return png(pixels);
}

const out = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "assets");
fs.mkdirSync(out, { recursive: true });
const light = { background: [250, 250, 252], lane: [40, 44, 52], dot: [255, 99, 71], transparentOutside: true };
const dark = { background: [30, 32, 38], lane: [235, 236, 240], dot: [255, 120, 90], transparentOutside: true };
// The extension's icon.png, and command-<name>.png for each command (package.json names them).
for (const [figure, draws] of Object.entries(FIGURES)) {
  const base = figure === "extension" ? "icon" : `command-${figure}`;
  for (const [name, look] of [
    [`${base}.png`, light],
    [`${base}@dark.png`, dark],
  ]) {
    fs.writeFileSync(path.join(out, name), draw(look, draws));
    console.log(`wrote assets/${name}`);
  }
}
