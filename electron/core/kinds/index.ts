import type { FieldSpec } from '../schema'
import { AUDIO_KIND } from './audio'
import { CONTACT_KIND, type ContactsContent } from './contact'
import { DOCUMENT_KIND } from './document'
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
export { phoneDigits } from './kind-module'

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
 * to a type that does not take it: the file's, the place's, the cards', the text's.
 */
export const SEND_FIELDS: Readonly<Record<string, SendField>> = Object.assign(
  {},
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
