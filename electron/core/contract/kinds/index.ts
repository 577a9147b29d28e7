import type { FieldSpec } from '../../schema'
import { AUDIO_KIND } from './audio'
import { CONTACT_KIND, type ContactsContent } from './contact'
import { DOCUMENT_KIND } from './document'
import { fileFields } from './file-fields'
import { GROUP_INVITE_KIND, type GroupInviteContent } from './group-invite'
import { IMAGE_KIND } from './image'
import type {
  ContentReaders,
  ContentWriters,
  KindForm,
  KindModule,
  MediaContent,
  SendField,
  SendKind,
  SummaryRule,
} from './kind-module'
import { LOCATION_KIND, type LocationContent } from './location'
import { MEDIA_KIND } from './media'
import { POLL_KIND, type PollContent } from './poll'
import { REACTION_KIND } from './reaction'
import { STICKER_KIND, type StickerContent } from './sticker'
import { TEXT_KIND, type TextContent } from './text'
import { VIDEO_KIND } from './video'
import { VIDEO_NOTE_KIND, type VideoNoteContent } from './video-note'
import { VOICE_KIND, type VoiceContent } from './voice'

export type * from './kind-module'
export { contentFields, phoneDigits } from './kind-module'

/**
 * Every message kind, in the order send_message lists its types and the forms offer them. A new kind is one
 * module here (with its tests, and its sandbox side).
 */
export const KINDS: readonly KindModule[] = [
  TEXT_KIND,
  MEDIA_KIND,
  IMAGE_KIND,
  VIDEO_KIND,
  AUDIO_KIND,
  DOCUMENT_KIND,
  VOICE_KIND,
  VIDEO_NOTE_KIND,
  STICKER_KIND,
  LOCATION_KIND,
  CONTACT_KIND,
  REACTION_KIND,
  POLL_KIND,
  GROUP_INVITE_KIND,
]

/** What the kinds build to send: each is written for the network by the kind that declares it. */
export type KindContent =
  | TextContent
  | MediaContent<'image'>
  | MediaContent<'video'>
  | MediaContent<'audio'>
  | MediaContent<'document'>
  | VoiceContent
  | VideoNoteContent
  | StickerContent
  | LocationContent
  | ContactsContent
  | PollContent
  | GroupInviteContent

/** The kinds send_message sends, by their `type`. */
export const SEND_KINDS: ReadonlyMap<string, SendKind<KindContent>> = new Map(
  KINDS.flatMap((kind) => (kind.send ? [[kind.send.type, kind.send as SendKind<KindContent>]] : [])),
)

/** send_message's `type` values. */
export const SEND_TYPES: readonly string[] = [...SEND_KINDS.keys()]

/** How each protocol content field is read, across the kinds. */
export const CONTENT_READERS: ContentReaders = Object.assign({}, ...KINDS.map((kind) => kind.reads ?? {}))

/** How each content the kinds build is written, by its `kind`. */
export const CONTENT_WRITERS: ContentWriters = Object.assign({}, ...KINDS.map((kind) => kind.writes ?? {}))

/**
 * The kinds' own send_message parameters, in the order send_message has always checked a parameter given
 * to a type that does not take it: the file's (of every kind sent from a file, then the file kind's own), the
 * place's, the cards', the text's.
 */
export const SEND_FIELDS: Readonly<Record<string, SendField>> = Object.assign(
  fileFields(SEND_TYPES.filter((type) => SEND_KINDS.get(type)?.file)),
  ...[MEDIA_KIND, LOCATION_KIND, CONTACT_KIND, TEXT_KIND, ...KINDS].map((kind) => kind.send?.fields ?? {}),
)

/**
 * send_message's parameters as the API documents them: those every type takes with the kinds' own, each
 * kind's listed where it says (`listedAfter`).
 */
export function documentedSendFields<
  Head extends Record<string, FieldSpec>,
  Tail extends Record<string, FieldSpec>,
>(head: Head, tail: Tail): Head & Tail & Record<string, FieldSpec> {
  const entries: Array<[string, FieldSpec]> = [
    ...Object.entries(head),
    ...Object.entries(SEND_FIELDS).map(
      ([name, { types: _types, listedAfter: _listed, ...spec }]): [string, FieldSpec] => [name, spec],
    ),
    ...Object.entries(tail),
  ]
  for (const [name, field] of Object.entries(SEND_FIELDS)) {
    if (!field.listedAfter) continue
    const from = entries.findIndex(([entry]) => entry === name)
    const [moved] = entries.splice(from, 1)
    const to = entries.findIndex(([entry]) => entry === field.listedAfter)
    if (moved) entries.splice(to + 1, 0, moved)
  }
  return Object.fromEntries(entries) as Head & Tail & Record<string, FieldSpec>
}

/** What the window needs of the kinds, put into its bundle at build time: their forms and summaries. */
export interface KindsForWindow {
  composer: KindForm[]
  sandbox: KindForm[]
  summaries: SummaryRule[]
}

/** The kinds' form declarations and summary rules, as plain data. */
export function kindsForWindow(): KindsForWindow {
  return {
    composer: KINDS.flatMap((kind) => (kind.forms?.composer ? [kind.forms.composer] : [])),
    sandbox: KINDS.flatMap((kind) => (kind.forms?.sandbox ? [kind.forms.sandbox] : [])),
    summaries: KINDS.flatMap((kind) => (kind.summary ? [kind.summary] : [])),
  }
}

/** How send_message describes its types, in the API's documentation: a new kind adds its words here. */
export const SEND_DOCS = {
  summary:
    'Send text, an image, a video, audio, a document, a voice or video note, a sticker, a location or contact cards.',
  types:
    '`text`, `media`, `voice` (a voice note), `video_note` (a round video), `sticker`, `location` or `contacts`.',
  description: [
    'Sends text (`type=text`, `message` = the text) or a file (`type=media`, `media_url`, optional `message` as',
    'caption and `filename` to send it as a document with that name) to a phone number (digits with country',
    'code; `+`, spaces, dashes and parentheses are ignored) or a chat id (`<number>@s.whatsapp.net`,',
    '`<id>@g.us` for groups, `<lid>@lid`). Numbers are checked on the network first (422 recipient_not_found,',
    'as for a group that does not exist or that the account is not in).',
    'Media is fetched by Linkdesk (http/https, size and time limits), or uploaded as the `file` part of a',
    'multipart/form-data body instead, and typed from its content: images,',
    'videos and audio are sent as such, anything else as a document. The answer comes once the network',
    'acknowledged the message (504 upstream_timeout otherwise: it may not have arrived, and it is sent again',
    'under its id on each new connection for 10 minutes, then marked failed: message.status `failed` with',
    'error_code `unacknowledged`). A message the network refuses answers 502 upstream_failed with',
    '`details.network_error`, and one to a group where only admins send, from a member who is not one, 403',
    'not_group_admin; either is then message.status `failed` with that error_code.',
    'A message that cannot be stored is not sent (503 unavailable). Sends of one instance',
    'are paced (see limits); when too many wait, 429 rate_limited with Retry-After. With `idempotency_key`',
    '(or an `Idempotency-Key` header), a retried request answers the first message once the network acknowledged',
    'it, or sends that message again under its id (the contact keeps one copy), never a second message.',
    'For media, `message` holds the media message with its safe fields only (type, size, name, caption,',
    'SHA-256 of the content): never the keys or URLs to download it.',
    '\n\n`type=voice` sends a voice note (push-to-talk, with its length and waveform) from `media_url` or the',
    '`file` part: Ogg/Opus as is, other audio converted with ffmpeg (422 media_unavailable naming the accepted',
    'format when none is installed). `type=video_note` sends a video as a round video note, `type=sticker` an',
    'image as a 512×512 WebP sticker (converted). Any file may come as `media_base64` instead (a JSON or form',
    'body, within the body limit), and `view_once=true` makes a `media` image or video open once. `type=location` sends `latitude` and `longitude` (decimal degrees; 422',
    'invalid_location out of range) with an optional `location_name` and `address`. `type=contacts` sends',
    'contact cards, each `<name>:<number>`. Any type may quote an earlier message with `reply_to` (its id,',
    'sent or received; 422 quoted_not_found when unknown) and mention people with `mentions` (numbers; each',
    '`@<number>` in the text is mentioned too). Lists (`contacts`, `mentions`) are a JSON array, the key',
    'repeated, or one comma-separated value; decimals are JSON numbers or strings such as `-33.8568`.',
  ].join(' '),
}
