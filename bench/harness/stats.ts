/** The value at percentile `p` (0–100) of `values`, nearest rank; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length) - 1
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? NaN
}

export const median = (values: readonly number[]): number => percentile(values, 50)

/** Median and spread of one figure over the rounds of a run. */
export interface Spread {
  median: number
  min: number
  max: number
  rounds: number
}

export function spread(values: readonly number[]): Spread {
  return {
    median: median(values),
    min: values.length ? Math.min(...values) : NaN,
    max: values.length ? Math.max(...values) : NaN,
    rounds: values.length,
  }
}

/** Least-squares line through the points: slope, intercept and R². */
export function linearFit(points: ReadonlyArray<{ x: number; y: number }>): {
  slope: number
  intercept: number
  r2: number
} {
  const n = points.length
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (const { x, y } of points) {
    sxy += (x - meanX) * (y - meanY)
    sxx += (x - meanX) ** 2
    syy += (y - meanY) ** 2
  }
  const slope = sxx === 0 ? NaN : sxy / sxx
  return {
    slope,
    intercept: meanY - slope * meanX,
    r2: sxx === 0 || syy === 0 ? NaN : (sxy * sxy) / (sxx * syy),
  }
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable across processes. */
export const wallClock = (): number => performance.timeOrigin + performance.now()

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
