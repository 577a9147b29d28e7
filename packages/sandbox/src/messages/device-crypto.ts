import { randomBytes } from 'node:crypto'
import type { proto } from '@whiskeysockets/baileys'
import type { Account } from '../accounts/account'
import type { LinkedDevice } from '../accounts/linked-device'
import { deviceAddress } from '../signal/addresses'
import type { Ciphertext } from '../signal/sim-device'
import { node, type BinaryNode } from '../stanzas/binary-node'

/** A message id in the style of WhatsApp Web's. */
export function newMessageId(): string {
  return `3EB0${randomBytes(9).toString('hex').toUpperCase()}`
}

/**
 * Encrypts a message from an account's phone to a linked device, first opening a session from the
 * keys the device uploaded if the phone has none (the result is then a pkmsg).
 */
export async function encryptForDevice(
  from: Account,
  owner: Account,
  device: LinkedDevice,
  message: proto.IMessage,
): Promise<Ciphertext> {
  const peer = deviceAddress(owner, device.id)
  if (!from.phoneDevice.hasSession(peer)) await from.phoneDevice.startSession(peer, device.takeBundle())
  return from.phoneDevice.encrypt(peer, message)
}

export function encNode(
  ciphertext: Ciphertext | { type: 'skmsg'; ciphertext: Buffer },
  mediatype?: string,
): BinaryNode {
  return node(
    'enc',
    { v: '2', type: ciphertext.type, ...(mediatype ? { mediatype } : {}) },
    ciphertext.ciphertext,
  )
}
