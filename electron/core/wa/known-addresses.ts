import { isJidGroup, isLidUser, isPnUser, type WAMessage, type WAMessageKey } from '@whiskeysockets/baileys'
import type { WaCallOffer, WaPresenceUpdate, WaStatusUpdate } from '../contract/network'

/** The part of Baileys' LID mapping store the adapter asks (`socket.signalRepository.lidMapping`). */
export interface LidMapping {
  /** From the mapping kept; never asks the network (it does not tell a hidden number). */
  getPNForLID(lid: string): Promise<string | null>
  /** From the mapping kept, else asked of the network (a USync `lid` query), which then keeps it. */
  getLIDForPN(pn: string): Promise<string | null>
}

/** The address of a person a key names without its other form: the chat (1:1) or the group member. */
function missing(key: WAMessageKey): { field: 'remoteJidAlt' | 'participantAlt'; jid: string } | undefined {
  const chat = key.remoteJid ?? ''
  if (isJidGroup(chat)) {
    return key.participant && !key.participantAlt
      ? { field: 'participantAlt', jid: key.participant }
      : undefined
  }
  if (chat.endsWith('@broadcast') || chat.endsWith('@newsletter')) return undefined
  return chat && !key.remoteJidAlt ? { field: 'remoteJidAlt', jid: chat } : undefined
}

/** Whether a message names a person by one address only (the mapping may know the other). */
export function lacksAddresses(messages: readonly WAMessage[]): boolean {
  return messages.some((message) => {
    const wanted = missing(message.key)
    return wanted !== undefined && (isLidUser(wanted.jid) || isPnUser(wanted.jid))
  })
}

/**
 * The messages with the other address of each person they name by one address only, where the mapping knows
 * it (or, for a phone number, the network tells it): Baileys gives it only when the network put it in the
 * envelope, and a message from someone whose number was hidden earlier names them by LID alone.
 */
export async function withKnownAddresses(
  mapping: LidMapping,
  messages: readonly WAMessage[],
): Promise<WAMessage[]> {
  return Promise.all(
    messages.map(async (message) => {
      const wanted = missing(message.key)
      if (!wanted) return message
      const ask = isLidUser(wanted.jid)
        ? mapping.getPNForLID(wanted.jid)
        : isPnUser(wanted.jid)
          ? mapping.getLIDForPN(wanted.jid)
          : null
      // Not known, or the network did not answer: the message names the person as the network gave it.
      const other = await ask?.catch(() => null)
      return other ? { ...message, key: { ...message.key, [wanted.field]: other } } : message
    }),
  )
}

/** A person's other address: the phone number of a LID (kept mapping only), the LID of a phone number. */
async function otherAddress(mapping: LidMapping, jid: string): Promise<string | null> {
  const ask = isLidUser(jid) ? mapping.getPNForLID(jid) : isPnUser(jid) ? mapping.getLIDForPN(jid) : null
  return (await ask?.catch(() => null)) ?? null
}

/**
 * Group receipts with the member's other id beside the one the network named them by, where known: a LID's
 * phone number from `phoneOf` (the mapping, then the group's members), a phone number's LID from the mapping.
 */
export async function withMemberAddresses(
  mapping: LidMapping,
  phoneOf: (group: string, lid: string) => Promise<string | null>,
  updates: readonly WaStatusUpdate[],
): Promise<WaStatusUpdate[]> {
  return Promise.all(
    updates.map(async (update) => {
      const { participant } = update
      if (!participant || update.participantAlt) return update
      const phone = isLidUser(participant) ? await phoneOf(update.chat, participant).catch(() => null) : null
      const alt = isLidUser(participant)
        ? phone && `${phone}@s.whatsapp.net`
        : await otherAddress(mapping, participant)
      return { ...update, participantAlt: alt }
    }),
  )
}

/** Whether a receipt names a group member by one id only. */
export function lacksMemberAddresses(updates: readonly WaStatusUpdate[]): boolean {
  return updates.some((update) => update.participant !== null && !update.participantAlt)
}

/** A call with the caller's phone number and LID, where known. */
export async function withCallerAddresses(mapping: LidMapping, call: WaCallOffer): Promise<WaCallOffer> {
  const lid = isLidUser(call.from) ? call.from : await otherAddress(mapping, call.from)
  const phone = call.callerPhone ?? (isLidUser(call.from) ? await otherAddress(mapping, call.from) : null)
  return { ...call, callerPhone: phone, callerLid: lid }
}

/** Presence updates with each participant's other address beside the one the network named, where known. */
export function withPresenceAddresses(
  mapping: LidMapping,
  updates: readonly WaPresenceUpdate[],
): Promise<WaPresenceUpdate[]> {
  return Promise.all(
    updates.map(async (update) => ({
      ...update,
      participantAlt: await otherAddress(mapping, update.participant),
    })),
  )
}
