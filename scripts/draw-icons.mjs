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

function draw({ background, lane, dot, transparentOutside }) {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  const lanes = [
    { y: 176, end: 360 },
    { y: 256, end: 300 },
    { y: 336, end: 400 },
  ];
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const cx = x + 0.5;
      const cy = y + 0.5;
      const plate = cover(roundedSquare(cx, cy, 24, 96));
      let rgb = background;
      for (const l of lanes) {
        const a = cover(capsule(cx, cy, 112, l.end - 40, l.y, 18));
        rgb = rgb.map((c, i) => c * (1 - a) + lane[i] * a);
        const d = cover(Math.hypot(cx - l.end, cy - l.y) - 30);
        rgb = rgb.map((c, i) => c * (1 - d) + dot[i] * d);
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
for (const [name, look] of [
  ["icon.png", light],
  ["icon@dark.png", dark],
]) {
  fs.writeFileSync(path.join(out, name), draw(look));
  console.log(`wrote assets/${name}`);
}
