/** What a sandbox contact can send from the window: each maps onto the control API's message body. */
export const CONTACT_KINDS = [
  { kind: 'text', label: 'Text' },
  { kind: 'file', label: 'A file' },
  { kind: 'voice_note', label: 'Voice note' },
  { kind: 'video_note', label: 'Video note' },
  { kind: 'sticker', label: 'Sticker' },
  { kind: 'location', label: 'Location' },
  { kind: 'contacts', label: 'Contact cards' },
] as const

export type ContactKind = (typeof CONTACT_KINDS)[number]['kind']

export interface ContactDraft {
  to: string
  kind: ContactKind
  /** The text, or a file's caption. */
  text: string
  /** The chosen file, as base64, with its type and name. */
  file: { base64: string; mimetype: string; name: string } | null
  viewOnce: boolean
  latitude: string
  longitude: string
  placeName: string
  /** One card a line, `<name>: <number>`. */
  contacts: string
  linkUrl: string
  linkTitle: string
  replyTo: string
  /** Numbers, separated by commas or spaces. */
  mentions: string
}

export const EMPTY_CONTACT_DRAFT: ContactDraft = {
  to: '',
  kind: 'text',
  text: '',
  file: null,
  viewOnce: false,
  latitude: '',
  longitude: '',
  placeName: '',
  contacts: '',
  linkUrl: '',
  linkTitle: '',
  replyTo: '',
  mentions: '',
}

const FILE_KINDS: ReadonlySet<ContactKind> = new Set(['file', 'voice_note', 'video_note', 'sticker'])

export function takesFile(kind: ContactKind): boolean {
  return FILE_KINDS.has(kind)
}

/** `Name: number` lines as cards; a line without a colon and digits is refused naming it. */
function cards(lines: string): Array<{ name: string; phone: string }> {
  return lines
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const colon = line.lastIndexOf(':')
      const name = colon > 0 ? line.slice(0, colon).trim() : ''
      const phone = colon > 0 ? line.slice(colon + 1).replace(/[^\d]/g, '') : ''
      if (!name || !phone) throw new Error(`“${line}” is not a card: write a name, a colon and the number.`)
      return { name, phone }
    })
}

/** The control API body (`POST /sandbox/accounts/{phone}/messages`) for a draft. */
export function contactSendBody(draft: ContactDraft): Record<string, unknown> {
  const body: Record<string, unknown> = { to: draft.to }
  if (draft.kind === 'text') {
    body.text = draft.text
    if (draft.linkUrl && draft.linkTitle) body.link_preview = { url: draft.linkUrl, title: draft.linkTitle }
  } else if (takesFile(draft.kind)) {
    if (!draft.file) throw new Error('Choose a file to send.')
    body.media_base64 = draft.file.base64
    body.mimetype = draft.file.mimetype || undefined
    if (draft.kind === 'file') {
      body.filename = draft.file.name
      if (draft.text) body.caption = draft.text
      if (draft.viewOnce) body.view_once = true
    } else {
      body.media_as = draft.kind
    }
  } else if (draft.kind === 'location') {
    body.location = {
      latitude: Number(draft.latitude),
      longitude: Number(draft.longitude),
      ...(draft.placeName ? { name: draft.placeName } : {}),
    }
  } else {
    body.contacts = cards(draft.contacts)
  }
  if (draft.replyTo.trim()) body.reply_to = draft.replyTo.trim()
  const mentions = draft.mentions.split(/[\s,]+/).filter((word) => word !== '')
  if (mentions.length) body.mentions = mentions
  return body
}
