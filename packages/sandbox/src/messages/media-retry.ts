import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { proto } from '@whiskeysockets/baileys'
import { bytesOf, child, node, unixNow, type BinaryNode } from '../stanzas/binary-node'
import type { StanzaContext } from '../stanzas/stanza-router'

const { ResultType } = proto.MediaRetryNotification

/** The key both sides derive from the message's media key to seal the request and the answer. */
function retryKey(mediaKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', mediaKey, Buffer.alloc(0), 'WhatsApp Media Retry Notification', 32))
}

function seal(plain: Uint8Array, key: Buffer, id: string): { ciphertext: Buffer; iv: Buffer } {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(id))
  return { ciphertext: Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]), iv }
}

/** Whether the request's sealed receipt opens with this media key and names the message. */
function opens(encrypt: BinaryNode | undefined, key: Buffer, id: string): boolean {
  const sealed = bytesOf(child(encrypt, 'enc_p'))
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytesOf(child(encrypt, 'enc_iv')))
    decipher.setAAD(Buffer.from(id)).setAuthTag(sealed.subarray(sealed.length - 16))
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()])
    return proto.ServerErrorReceipt.decode(plain).stanzaId === id
  } catch {
    return false
  }
}

/**
 * A linked device asks its account's phone to upload a file again (a `server-error` receipt: the media host
 * forgot it). The phone, holding the file it sent or received, uploads it anew and answers with a `mediaretry`
 * notification naming the new direct path; a phone that no longer has it answers NOT_FOUND (an error code,
 * as it has no key to seal an answer with), and one that cannot open the request DECRYPTION_ERROR.
 */
export function answerMediaRetry({ network, session, connection }: StanzaContext, receipt: BinaryNode): void {
  if (!session) return
  const id = receipt.attrs.id ?? ''
  const rmr = child(receipt, 'rmr')
  const attrs = { from: session.account.pnJid, type: 'mediaretry', id, t: String(unixNow()) }
  const answer = (content: BinaryNode[]) =>
    connection.send(node('notification', attrs, [node('rmr', { ...rmr?.attrs }), ...content]))
  const copy = network.phoneMedia.get(session.account.phone, id)
  if (!copy) {
    network.log.debug({ phone: session.account.phone, id }, 'media retry: the phone has no such file')
    return answer([node('error', { code: String(ResultType.NOT_FOUND) })])
  }
  const key = retryKey(copy.mediaKey)
  const result = opens(child(receipt, 'encrypt'), key, id) ? ResultType.SUCCESS : ResultType.DECRYPTION_ERROR
  const directPath = result === ResultType.SUCCESS ? network.media.put(copy.file).directPath : undefined
  const notification = proto.MediaRetryNotification.encode({ stanzaId: id, directPath, result }).finish()
  const { ciphertext, iv } = seal(notification, key, id)
  network.log.debug({ phone: session.account.phone, id, result }, 'media retry answered')
  answer([node('encrypt', {}, [node('enc_p', {}, ciphertext), node('enc_iv', {}, iv)])])
}
