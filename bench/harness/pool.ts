/** Runs `task(0..count-1)` with at most `width` at once; answers the results in index order. */
export async function inPool<T>(
  count: number,
  width: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array<T>(count)
  let next = 0
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next++
      results[index] = await task(index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, count) }, lane))
  return results
}
