import {
  decodeBinaryNode,
  decodeDecompressedBinaryNode,
  decompressingIfRequired,
  encodeBinaryNode,
} from '@whiskeysockets/baileys'
import { TAGS } from '@whiskeysockets/baileys/lib/WABinary/constants.js'
import type { BinaryNode } from '../stanzas/binary-node'
import { DOUBLE_BYTE_TOKENS_V2, SINGLE_BYTE_TOKENS_V2 } from './dictionary-v2'
import type { DictionaryVersion } from './frame-reader'

/** Dictionary 2: its tokens and their index, with the tags both versions share. */
const V2 = (() => {
  const TOKEN_MAP: Record<string, { dict?: number; index: number }> = {}
  SINGLE_BYTE_TOKENS_V2.forEach((token, index) => (TOKEN_MAP[token] = { index }))
  DOUBLE_BYTE_TOKENS_V2.forEach((tokens, dict) =>
    tokens.forEach((token, index) => (TOKEN_MAP[token] = { dict, index })),
  )
  return {
    TAGS,
    SINGLE_BYTE_TOKENS: SINGLE_BYTE_TOKENS_V2,
    DOUBLE_BYTE_TOKENS: DOUBLE_BYTE_TOKENS_V2,
    TOKEN_MAP,
  }
})() as unknown as Parameters<typeof encodeBinaryNode>[1] & Parameters<typeof decodeDecompressedBinaryNode>[1]

/** A stanza as binary XML in the connection's dictionary. */
export function encodeStanza(stanza: BinaryNode, dictionary: DictionaryVersion): Buffer {
  return dictionary === 2 ? encodeBinaryNode(stanza, V2) : encodeBinaryNode(stanza)
}

/** A client's binary XML (compressed or not) read in the connection's dictionary. */
export async function decodeStanza(data: Buffer, dictionary: DictionaryVersion): Promise<BinaryNode> {
  if (dictionary === 3) return decodeBinaryNode(data)
  return decodeDecompressedBinaryNode(await decompressingIfRequired(data), V2)
}
