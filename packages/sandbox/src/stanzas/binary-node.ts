import type { BinaryNode } from '@whiskeysockets/baileys'

export type { BinaryNode }

/** The server's own JID as it appears in `from` attributes. */
export const SERVER_JID = 's.whatsapp.net'

export function unixNow(): number {
  return Math.floor(Date.now() / 1000)
}

export function node(
  tag: string,
  attrs: Record<string, string> = {},
  content?: BinaryNode['content'],
): BinaryNode {
  return content === undefined ? { tag, attrs } : { tag, attrs, content }
}

export function childrenOf(parent: BinaryNode | undefined): BinaryNode[] {
  return Array.isArray(parent?.content) ? parent.content : []
}

export function child(parent: BinaryNode | undefined, tag: string): BinaryNode | undefined {
  return childrenOf(parent).find((c) => c.tag === tag)
}

export function children(parent: BinaryNode | undefined, tag: string): BinaryNode[] {
  return childrenOf(parent).filter((c) => c.tag === tag)
}

/** The byte content of a node, or an empty buffer when it has none. */
export function bytesOf(n: BinaryNode | undefined): Buffer {
  const content = n?.content
  if (content instanceof Uint8Array) return Buffer.from(content)
  if (typeof content === 'string') return Buffer.from(content, 'utf8')
  return Buffer.alloc(0)
}

export function uintBytes(value: number, length: number): Buffer {
  const out = Buffer.alloc(length)
  out.writeUIntBE(value, 0, length)
  return out
}

export function readUint(n: BinaryNode | undefined): number {
  const bytes = bytesOf(n)
  return bytes.length === 0 ? 0 : bytes.readUIntBE(0, Math.min(bytes.length, 6))
}

/** The reply to a client query: same id, `type="result"`. */
export function iqResult(
  iq: BinaryNode,
  content?: BinaryNode[],
  attrs: Record<string, string> = {},
): BinaryNode {
  return node(
    'iq',
    { from: iq.attrs.to || SERVER_JID, type: 'result', id: iq.attrs.id ?? '', ...attrs },
    content,
  )
}

/** An error reply: Baileys' query() throws a Boom with `code` as its data. */
export function iqError(iq: BinaryNode, code: number, text: string): BinaryNode {
  return node('iq', { from: iq.attrs.to || SERVER_JID, type: 'error', id: iq.attrs.id ?? '' }, [
    node('error', { code: String(code), text }),
  ])
}
