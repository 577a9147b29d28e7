import { randomFillSync } from 'node:crypto'

// Crockford's base32: sorts in the same order as the numbers it encodes, and reads without ambiguity.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const TIME_CHARS = 10
const RANDOM_CHARS = 16

/** Upper bound for ids in range scans: every id sorts below it. */
export const ID_MAX = '~'

function encodeTime(ms: number): string {
  let out = ''
  let rest = Math.max(0, Math.floor(ms))
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out
    rest = Math.floor(rest / 32)
  }
  return out
}

/** Random bytes drawn in blocks: one call into the system's generator per 256 ids instead of one per id. */
const pool = Buffer.alloc(RANDOM_CHARS * 256)
let poolOffset = pool.length

function randomPart(): number[] {
  if (poolOffset === pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const bytes = pool.subarray(poolOffset, poolOffset + RANDOM_CHARS)
  poolOffset += RANDOM_CHARS
  // The top digit stays below 16 so that increments within one millisecond cannot overflow in practice.
  return [...bytes].map((byte, i) => (i === 0 ? byte % 16 : byte % 32))
}

/** The smallest id of the given millisecond: ids at or after that time sort at or above it. */
export function idFloorAt(ms: number): string {
  return encodeTime(ms) + '0'.repeat(RANDOM_CHARS)
}

/** The time, in milliseconds, encoded in an id. */
export function idTime(id: string): number {
  let ms = 0
  for (const char of id.slice(0, TIME_CHARS)) ms = ms * 32 + ALPHABET.indexOf(char)
  return ms
}

/** Whether a string has the shape of an id made here (26 base32 characters). */
export function isEventId(value: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value)
}

/** Makes ids; `after(id)` raises its floor: every later id sorts after `id` (ids another node made). */
export type IdFactory = (() => string) & { after(id: string): void }

/**
 * Makes unique ids that sort in the order they were made (ULID layout: 48 bits of milliseconds, 80 random
 * bits), also within one millisecond and when the clock steps back, and after `after` (the last id stored).
 */
export function createIdFactory(now: () => number = Date.now, after?: string): IdFactory {
  let lastTime = -1
  let lastRandom: number[] = []
  const floor = (id: string) => {
    if (id <= encodeTime(lastTime) + lastRandom.map((digit) => ALPHABET[digit]).join('')) return
    lastTime = idTime(id)
    lastRandom = [...id.slice(TIME_CHARS)].map((c) => ALPHABET.indexOf(c))
  }
  if (after) floor(after)
  const next = () => {
    const time = now()
    if (time > lastTime) {
      lastTime = time
      lastRandom = randomPart()
    } else {
      lastRandom = increment(lastRandom)
    }
    return encodeTime(lastTime) + lastRandom.map((digit) => ALPHABET[digit]).join('')
  }
  return Object.assign(next, { after: floor })
}

function increment(digits: number[]): number[] {
  const next = [...digits]
  for (let i = next.length - 1; i >= 0; i--) {
    const digit = (next[i] ?? 0) + 1
    if (digit < 32) {
      next[i] = digit
      return next
    }
    next[i] = 0
  }
  throw new Error('event id space of one millisecond exhausted')
}
