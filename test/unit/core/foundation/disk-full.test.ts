import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { causeOf, ranOutOfRoom } from "../../../../src/core/foundation/disk-full.js";
import { fillToTheLastByte, itWithTmpfs, mountTmpfs, unmountTmpfs } from "../../../helpers/tmpfs.js";

// git does not always say why a write failed: on a full disk, `git merge` may stop at
// "couldn't write '.git/ORIG_HEAD.lock'" with no errno words, depending on which of its writes
// meets the end of the disk first. Broke: CI's merge on a full tmpfs was told as a failed merge.
const GIT_WITHOUT_WORDS = new Error(
  "Merging big (offrun/big) into main failed: fatal: update_ref failed for ref 'ORIG_HEAD': cannot update ref 'ORIG_HEAD': couldn't write '/x/.git/ORIG_HEAD.lock'",
);

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "offrun-room-"));
});
afterAll(async () => {
  await unmountTmpfs(path.join(dir, "disk"));
  await fs.rm(dir, { recursive: true, force: true });
});

test("a failure in the system's own words is a full disk wherever it happened", async () => {
  const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  expect(await ranOutOfRoom(dir, full)).toBe(true);
  expect(await ranOutOfRoom(dir, new Error("git: Out of diskspace"))).toBe(true);
});

itWithTmpfs("a failure without those words is a full disk only where the disk has no room left", async () => {
  const disk = path.join(dir, "disk");
  await mountTmpfs(disk, "2m");
  expect(await ranOutOfRoom(disk, GIT_WITHOUT_WORDS)).toBe(false);
  expect(await causeOf(disk, GIT_WITHOUT_WORDS)).toBe(GIT_WITHOUT_WORDS.message);

  await fillToTheLastByte(path.join(disk, "filler"));
  expect(await ranOutOfRoom(disk, GIT_WITHOUT_WORDS)).toBe(true);
  expect(await causeOf(disk, GIT_WITHOUT_WORDS)).toBe(`the disk holding ${disk} is full (0 KB free)`);
});
