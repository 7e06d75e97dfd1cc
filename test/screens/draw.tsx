import { render, type Screen } from "../helpers/raycast-api-render.js";
import type { ScreenSpec } from "./catalog.js";
import { pageHtml } from "./html.js";
import type { Scene } from "./scene.js";

/** One screen of the catalog rendered through the @raycast/api stand-in, settled, as the tree and as HTML. */
export async function drawScreen(spec: ScreenSpec, scene: Scene): Promise<{ screen: Screen; html: string }> {
  const screen = render(await spec.element(scene));
  let selectedId: string | undefined;
  if (spec.select) {
    const item = await screen.waitFor(() => screen.byTitle("List.Item", spec.select!), 30_000);
    selectedId = String(item.props.id);
    await screen.select(item);
  }
  await screen.waitFor(() => spec.ready(screen), 30_000);
  // Effects that follow the ready state (a detail's second read, a sign-in check) land first.
  await screen.settle(200);
  return { screen, html: pageHtml(screen.top, { selectedId, showActions: spec.showActions === true }) };
}
