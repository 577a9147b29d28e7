import { timingSafeEqual } from 'node:crypto'

/** Who is calling: a script with an access token, the operator's window with the UI credential, or nobody known. */
export type Principal = { kind: 'token'; tokenId: string } | { kind: 'operator' } | { kind: 'anonymous' }

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
