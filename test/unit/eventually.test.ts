import { eventually } from "../helpers/offrun.js";

// A wait that times out says what the check last threw: a CI failure reads without a rerun.
test("a timed-out wait names the check's last error", async () => {
  let tries = 0;
  const waited = eventually(
    async () => {
      tries += 1;
      throw new Error(`not yet: try ${tries}`);
    },
    300,
    "the answer",
  );
  await expect(waited).rejects.toThrow(/^timed out waiting for the answer; the check last threw: not yet: try \d+$/);
});

test("a check that answers ends the wait with its value", async () => {
  let tries = 0;
  expect(await eventually(async () => (++tries >= 3 ? "done" : undefined), 5_000)).toBe("done");
});
