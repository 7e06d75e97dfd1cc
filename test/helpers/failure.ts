/** The error a promise fails with; a promise that succeeds, or fails with no Error, fails the test. */
export async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error("expected a failure");
  return error;
}
