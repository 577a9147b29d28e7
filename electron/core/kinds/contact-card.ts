import ICAL from 'ical.js'

/** A contact card as people read it: a name and the phone numbers on it. */
export interface ContactCard {
  name: string
  /** Digits with country code: the WhatsApp id (`waid`) where the card has one, else the number's digits. */
  phones: string[]
}

/** The vCard 3.0 WhatsApp apps send for a contact: the number carries its WhatsApp id so it is tappable. */
export function contactCardVcard(card: { name: string; phone: string }): string {
  const vcard = new ICAL.Component('vcard')
  vcard.addPropertyWithValue('version', '3.0')
  vcard.addPropertyWithValue('fn', card.name)
  const tel = vcard.addPropertyWithValue('tel', `+${card.phone}`)
  tel.setParameter('type', ['CELL', 'VOICE'])
  tel.setParameter('waid', card.phone)
  return vcard.toString()
}

function phoneOf(tel: ICAL.Property): string {
  const waid = tel.getParameter('waid')
  if (typeof waid === 'string' && waid) return waid
  return String(tel.getFirstValue() ?? '').replace(/\D/g, '')
}

/** Reads the name and numbers of a vCard; undefined when the text is not a vCard. */
export function parseContactCard(vcard: string, fallbackName = ''): ContactCard | undefined {
  let parsed: unknown
  try {
    parsed = ICAL.parse(vcard)
  } catch {
    return undefined
  }
  // One card parses to a jCard; several cards in one text parse to a list of them.
  const first = Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed[0] : parsed
  if (!Array.isArray(first) || first[0] !== 'vcard') return undefined
  const component = new ICAL.Component(first)
  const name = component.getFirstPropertyValue('fn')
  return {
    name: typeof name === 'string' && name ? name : fallbackName,
    phones: component
      .getAllProperties('tel')
      .map(phoneOf)
      .filter((phone) => phone !== ''),
  }
}
