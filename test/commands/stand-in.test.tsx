import { Action, ActionPanel, Form, List } from "@raycast/api";
import { useCachedPromise, useForm } from "@raycast/utils";
import { useState } from "react";
import { render } from "../helpers/raycast-api-render.js";
import { runtime } from "../helpers/raycast-api.js";

// The stand-in renders what the commands use: @raycast/utils hooks, forms, pushes. If it drifts,
// every command test would pass or fail for the wrong reason, so it has tests of its own.

function Loader({ value }: { value: string }) {
  const { data, isLoading } = useCachedPromise(async (v: string) => `loaded ${v}`, [value]);
  const [count, setCount] = useState(0);
  return (
    <List isLoading={isLoading}>
      {data ? (
        <List.Item
          title={data}
          subtitle={String(count)}
          actions={
            <ActionPanel>
              <Action title="Count" onAction={() => setCount((c) => c + 1)} />
              <Action.Push title="Open" target={<Named name="pushed" />} />
            </ActionPanel>
          }
        />
      ) : null}
    </List>
  );
}

function Named({ name }: { name: string }) {
  return <List navigationTitle={name} />;
}

function NameForm({ onName }: { onName: (name: string) => void }) {
  const { handleSubmit, itemProps } = useForm<{ name: string }>({
    onSubmit: (values) => onName(values.name),
    validation: { name: (v) => (v ? undefined : "Required") },
  });
  return (
    <Form
      actions={
        <ActionPanel>
          <Action.SubmitForm title="Save" onSubmit={handleSubmit} />
        </ActionPanel>
      }
    >
      <Form.TextField title="Name" {...itemProps.name} />
    </Form>
  );
}

beforeEach(() => runtime.reset());

test("useCachedPromise data, state updates and pushes render like Raycast", async () => {
  const screen = render(<Loader value="x" />);
  const item = await screen.waitFor(() => screen.byTitle("List.Item", "loaded x"));
  expect(screen.find("List").props.isLoading).toBe(false);
  await screen.press(screen.action(item, "Count"));
  await screen.waitFor(() => expect(screen.byTitle("List.Item", "loaded x").props.subtitle).toBe("1"));
  await screen.press(screen.action(screen.byTitle("List.Item", "loaded x"), "Open"));
  await screen.waitFor(() => expect(screen.find("List").props.navigationTitle).toBe("pushed"));
  screen.unmount();
});

test("useForm validates and submits what was typed", async () => {
  const names: string[] = [];
  const screen = render(<NameForm onName={(n) => names.push(n)} />);
  await screen.settle();
  await screen.press(screen.action(screen.find("Form"), "Save"));
  expect(names).toEqual([]);
  await screen.waitFor(() => expect(screen.findField("name").props.error).toBe("Required"));
  screen.setField("name", "Ada");
  await screen.settle();
  await screen.press(screen.action(screen.find("Form"), "Save"));
  expect(names).toEqual(["Ada"]);
  screen.unmount();
});
