/**
 * Polls fn until pass(value) holds and returns that value; throws (with the last value) when timeoutMs runs
 * out. For what happens moments later: deliveries, the stream sequencer, log lines.
 */
export async function until<T>(fn: () => T | Promise<T>, pass: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (pass(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
