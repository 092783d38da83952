// Tests that count within "this minute" must not straddle two minutes.

/** Margin that a burst of test requests needs to finish inside one calendar minute. */
const MARGIN_MS = 8_000;

/** Waits for the next minute when the current one has less than MARGIN_MS left. */
export async function awayFromMinuteEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < MARGIN_MS) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
