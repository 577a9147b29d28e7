import { AppError } from '../../errors'
import type { ContactCardInfo } from '../message'
// The vCard code the sandbox shares, by path rather than by package name: the build configurations load the
// kinds (renderer/build-defines.ts) through Node, which cannot load a workspace package's TypeScript by name.
import { contactCardVcard, parseContactCard } from '../../../../packages/sandbox/src/protocol/contact-card'
import { type KindModule, phoneDigits, type SendParams } from './kind-module'

/** Contact cards to send: the name shown and the vCard that carries the number. */
export interface ContactsContent {
  kind: 'contacts'
  contacts: Array<{ name: string; vcard: string }>
}

/** A card as the protocol carries it. */
interface ProtocolContact {
  displayName?: string | null
  vcard?: string | null
}

function contactCardOf(contact: ProtocolContact): ContactCardInfo {
  const vcard = contact.vcard ?? ''
  const card = parseContactCard(vcard, contact.displayName ?? '')
  return { name: card?.name ?? contact.displayName ?? '', phones: card?.phones ?? [], vcard }
}

/**
 * `contacts` items, each `<name>:<number>`: split at the last colon, since a number has none and a name may.
 * A malformed item is refused naming it.
 */
function contactCards(items: readonly string[]): ContactsContent['contacts'] {
  return items.map((item) => {
    const colon = item.lastIndexOf(':')
    const name = colon > 0 ? item.slice(0, colon).trim() : ''
    const phone = colon > 0 ? phoneDigits(item.slice(colon + 1)) : undefined
    if (!name || !phone) {
      throw new AppError(
        'invalid_parameter',
        `contacts: "${item}" must be <name>:<number>, such as "Alice Smith:+15551234567".`,
        { details: { parameter: 'contacts' } },
      )
    }
    return { name, vcard: contactCardVcard({ name, phone }) }
  })
}

/** Contact cards (`type=contacts`), read as the `contact` type from one card or several. */
export const CONTACT_KIND: KindModule = {
  name: 'contact',
  reads: {
    contactMessage: {
      type: 'contact',
      read: (contact: ProtocolContact) => ({ contacts: [contactCardOf(contact)] }),
    },
    contactsArrayMessage: {
      type: 'contact',
      read: (list: { contacts?: ProtocolContact[] | null }) => ({
        contacts: (list.contacts ?? []).map(contactCardOf),
      }),
    },
  },
  writes: {
    contacts: {
      write: ({ contacts }: ContactsContent) => ({
        contacts: {
          displayName: contacts.length === 1 ? contacts[0]?.name : `${contacts.length} contacts`,
          contacts: contacts.map(({ name, vcard }) => ({ displayName: name, vcard })),
        },
      }),
      answer: 'whole',
    },
  },
  send: {
    type: 'contacts',
    example: {
      summary: 'Contact cards',
      params: { type: 'contacts', contacts: ['Bob Builder:15551230003', 'Alice:15551230004'] },
    },
    fields: {
      contacts: {
        type: 'list',
        maxItems: 20,
        maxLength: 300,
        description:
          'For `contacts`: cards, each `<name>:<number>` (split at the last colon); sent as vCards with the WhatsApp id.',
        example: ['Alice Smith:+15551234567'],
        types: ['contacts'],
      },
    },
    required: ['contacts'],
    validate: (params) => void contactCards(params.contacts as string[]),
    build: async (params: SendParams): Promise<ContactsContent> => ({
      kind: 'contacts',
      contacts: contactCards((params.contacts as string[] | undefined) ?? []),
    }),
    fingerprint: (params) => ({ before: { contacts: params.contacts } }),
  },
  forms: {
    composer: {
      kind: 'contacts',
      label: 'Contact cards',
      fields: [
        {
          name: 'contacts',
          param: 'contacts',
          value: 'lines',
          label: 'Contact cards',
          input: 'textarea',
          required: true,
          rows: 3,
          placeholder: 'Alice Smith: +1 555 123 4567',
          hint: 'One card a line: a name, a colon, and the number with country code.',
        },
      ],
    },
    sandbox: {
      kind: 'contacts',
      label: 'Contact cards',
      fields: [
        {
          name: 'contacts',
          param: 'contacts',
          value: 'cards',
          label: 'Cards, one a line (name: number)',
          input: 'textarea',
          required: true,
          rows: 2,
        },
      ],
    },
  },
  summary: { shows: 'cards', field: 'contacts', label: 'contact' },
}
