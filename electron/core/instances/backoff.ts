/** Capped exponential backoff with jitter: base·2^attempt, times a random factor in [0.5, 1.5), at most max. */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exponential = baseMs * 2 ** Math.min(attempt, 30)
  return Math.round(Math.min(maxMs, exponential * (0.5 + random())))
}
