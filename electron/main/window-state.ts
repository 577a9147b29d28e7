/** The window's size and place, remembered between launches. */
export interface WindowState {
  width: number
  height: number
  x?: number
  y?: number
  maximized: boolean
}

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1200, height: 800, maximized: false }
export const MIN_WINDOW_SIZE = { width: 800, height: 560 }

function finite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
}

/**
 * The saved state made safe for the screens attached now: anything unreadable gives the default, the size
 * is kept between the minimum and the largest screen, and a position on a screen that is gone is dropped
 * (the OS then centres the window) so it never opens out of sight.
 */
export function restoreWindowState(saved: unknown, workAreas: readonly Rect[]): WindowState {
  if (typeof saved !== 'object' || saved === null) return { ...DEFAULT_WINDOW_STATE }
  const candidate = saved as Record<string, unknown>
  if (!finite(candidate.width) || !finite(candidate.height)) return { ...DEFAULT_WINDOW_STATE }
  const largest = workAreas.reduce(
    (max, area) => ({ width: Math.max(max.width, area.width), height: Math.max(max.height, area.height) }),
    { width: MIN_WINDOW_SIZE.width, height: MIN_WINDOW_SIZE.height },
  )
  const width = Math.round(Math.min(Math.max(candidate.width, MIN_WINDOW_SIZE.width), largest.width))
  const height = Math.round(Math.min(Math.max(candidate.height, MIN_WINDOW_SIZE.height), largest.height))
  const state: WindowState = { width, height, maximized: candidate.maximized === true }
  if (finite(candidate.x) && finite(candidate.y)) {
    const bounds = { x: Math.round(candidate.x), y: Math.round(candidate.y), width, height }
    if (workAreas.some((area) => overlaps(bounds, area))) {
      state.x = bounds.x
      state.y = bounds.y
    }
  }
  return state
}
