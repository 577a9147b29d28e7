/** What the composer can send: each a `type` of send_message. */
export const COMPOSER_KINDS = [
  { type: 'text', label: 'Text' },
  { type: 'media', label: 'A file (image, video, audio or document)' },
  { type: 'voice', label: 'Voice note' },
  { type: 'video_note', label: 'Video note' },
  { type: 'sticker', label: 'Sticker' },
  { type: 'location', label: 'Location' },
  { type: 'contacts', label: 'Contact cards' },
] as const

export type ComposerKind = (typeof COMPOSER_KINDS)[number]['type']

/** Kinds sent from a file (a URL Linkdesk fetches, or a local file uploaded first). */
export const FILE_KINDS: ReadonlySet<ComposerKind> = new Set(['media', 'voice', 'video_note', 'sticker'])

/** Kinds whose `message` is their text or caption; the others have none. */
export const TEXT_KINDS: ReadonlySet<ComposerKind> = new Set(['text', 'media'])

export interface ComposerDraft {
  instanceId: string
  number: string
  kind: ComposerKind
  message: string
  /** The file's address: typed, or the upload's once uploaded. */
  mediaUrl: string
  filename: string
  viewOnce: boolean
  linkPreview: boolean
  latitude: string
  longitude: string
  locationName: string
  address: string
  /** One card a line, `<name>: <number>`. */
  contacts: string
  replyTo: string
  /** Numbers, separated by commas or spaces. */
  mentions: string
}

export const EMPTY_DRAFT: ComposerDraft = {
  instanceId: '',
  number: '',
  kind: 'text',
  message: '',
  mediaUrl: '',
  filename: '',
  viewOnce: false,
  linkPreview: false,
  latitude: '',
  longitude: '',
  locationName: '',
  address: '',
  contacts: '',
  replyTo: '',
  mentions: '',
}

function words(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((word) => word.trim())
    .filter((word) => word !== '')
}

/** The card lines as the API's `<name>:<number>` items; blank lines are left out. */
function cards(value: string): string[] {
  return value
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
}

/**
 * The send_message parameters of a draft, as a script would send them: only what its kind uses, and each
 * optional field only when filled in (so a plain text is exactly the seed's request).
 */
export function composerParams(draft: ComposerDraft): Record<string, unknown> {
  const params: Record<string, unknown> = {
    instance_id: draft.instanceId,
    number: draft.number,
    type: draft.kind,
  }
  if (TEXT_KINDS.has(draft.kind) && (draft.kind === 'text' || draft.message)) params.message = draft.message
  if (FILE_KINDS.has(draft.kind)) params.media_url = draft.mediaUrl
  if (draft.kind === 'media' && draft.filename) params.filename = draft.filename
  if (draft.kind === 'media' && draft.viewOnce) params.view_once = true
  if (draft.kind === 'text' && draft.linkPreview) params.link_preview = true
  if (draft.kind === 'location') {
    params.latitude = Number(draft.latitude)
    params.longitude = Number(draft.longitude)
    if (draft.locationName) params.location_name = draft.locationName
    if (draft.address) params.address = draft.address
  }
  if (draft.kind === 'contacts') params.contacts = cards(draft.contacts)
  if (draft.replyTo.trim()) params.reply_to = draft.replyTo.trim()
  const mentions = words(draft.mentions)
  if (mentions.length) params.mentions = mentions
  return params
}

/** A draft begun from the location hash's query (`#/composer?instance_id=…&number=…&reply_to=…`). */
export function draftFromQuery(query: URLSearchParams): ComposerDraft {
  return {
    ...EMPTY_DRAFT,
    instanceId: query.get('instance_id') ?? '',
    number: query.get('number') ?? '',
    replyTo: query.get('reply_to') ?? '',
  }
}
