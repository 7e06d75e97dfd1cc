import { List } from "@raycast/api";
import { usePoll } from "../../../src/commands/lib/poll.js";
import { render } from "../../helpers/raycast-api-render.js";
import { runtime } from "../../helpers/raycast-api.js";

// The Agents view's 3 s poll: a look slower than the interval must not start a second one beside
// it (setInterval piled them up), and closing the view must end the loop.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function Poller({ refresh, active }: { refresh: () => Promise<unknown>; active: boolean }) {
  usePoll(refresh, 20, active);
  return <List searchBarPlaceholder="Filter" />;
}

beforeEach(() => runtime.reset());

test("a poll slower than its interval runs one look at a time, and stops when the view closes", async () => {
  let running = 0;
  let most = 0;
  let looks = 0;
  const refresh = async () => {
    looks++;
    most = Math.max(most, ++running);
    await sleep(60);
    running--;
  };
  const screen = render(<Poller refresh={refresh} active />);
  await sleep(500);
  expect(most).toBe(1);
  expect(looks).toBeGreaterThanOrEqual(3);
  screen.unmount();
  const atClose = looks;
  await sleep(200);
  expect(looks).toBe(atClose);
});

test("a failed look does not end the poll, and an inactive poll never looks", async () => {
  let looks = 0;
  const failing = render(<Poller refresh={async () => Promise.reject(new Error(`look ${++looks}`))} active />);
  await sleep(200);
  expect(looks).toBeGreaterThanOrEqual(2);
  failing.unmount();

  let idleLooks = 0;
  const idle = render(<Poller refresh={async () => void idleLooks++} active={false} />);
  await sleep(100);
  expect(idleLooks).toBe(0);
  idle.unmount();
});
