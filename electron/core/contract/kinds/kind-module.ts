import { AppError } from '../../errors'
import {
  type LinkdeskMessage,
  MESSAGE_CONTENT_FIELDS,
  type MediaInfo,
  type MediaKind,
  type MessageType,
  NO_MEDIA_FACTS,
} from '../message'
import type { FieldSpec } from '../../schema'

/*
 * What one message kind declares, read generically by the rest: the sender and send_message (its parameters,
 * rules and the content it builds), the network adapter (how its protocol content is read and written), and
 * the window (its form fields, as plain data put into the bundle at build time).
 *
 * Protocol messages are plain objects with optional fields: a kind reads and writes them through small
 * structural types of its own, so no kind imports the network library; the adapter hands the objects over.
 */

/** A protocol integer: a number, or a 64-bit value object (with toNumber, or its low bits). */
export type ProtocolLong = number | { toNumber(): number } | { low: number }

/** A protocol integer as a number (0 when absent). */
export function protocolNumber(value: ProtocolLong | null | undefined): number {
  if (value === null || value === undefined) return 0
  if (typeof value === 'number') return value
  return 'toNumber' in value ? value.toNumber() : value.low
}

/** What a message holds beside its type, as its kind reads it: the fields of a LinkdeskMessage it fills in. */
export type ContentReading = { [Field in ContentField]?: LinkdeskMessage[Field] | null }

type ContentField = (typeof MESSAGE_CONTENT_FIELDS)[number]

/** A kind's reading as a message's content fields: what it did not read is null. */
export function contentFields(reading: ContentReading): {
  [Field in ContentField]: NonNullable<LinkdeskMessage[Field]> | null
} {
  return Object.fromEntries(MESSAGE_CONTENT_FIELDS.map((field) => [field, reading[field] ?? null])) as {
    [Field in ContentField]: NonNullable<LinkdeskMessage[Field]> | null
  }
}

/**
 * How incoming content is read: by the protocol's content field (`<name>Message`, …),
 * the message type it is shown as and, when it holds more than its type, how its fields are read; `holdsFile`
 * when the content is a file's (its safe facts are what a send answer shows).
 */
export type ContentReaders = Record<
  string,
  { type: MessageType; read?(inner: never): ContentReading; holdsFile?: boolean }
>

/** The network library's content to send, as plain data (`{ image, caption, mimetype }`, …). */
export type ProtocolContent = Record<string, unknown>

/**
 * How the content a kind builds is written for the network, by the content's `kind`; `answer` says how the
 * send answer shows it: `whole` (its protocol content, there being no file to hide), the protocol field its
 * media answer is named after, or the answer's message made from the content itself.
 */
export type ContentWriters = Record<
  string,
  {
    write(content: never): ProtocolContent
    answer?: 'whole' | { field: string } | ((content: never) => ProtocolContent)
  }
>

/** Facts about a media attachment as the protocol states them (never its keys or URLs). */
export interface ProtocolMedia {
  mimetype?: string | null
  fileLength?: ProtocolLong | null
  fileSha256?: Uint8Array | null
  caption?: string | null
  seconds?: number | null
}

/** The media facts Linkdesk shows, with what a kind adds (a name, a note's flag); the API adds `download_url`. */
export function mediaFacts(
  media: ProtocolMedia,
  extra: { [Field in keyof MediaInfo]?: MediaInfo[Field] | null } = {},
): MediaInfo {
  const facts: MediaInfo = {
    ...NO_MEDIA_FACTS,
    mimetype: media.mimetype ?? null,
    size:
      media.fileLength === null || media.fileLength === undefined ? null : protocolNumber(media.fileLength),
    sha256: media.fileSha256 ? Buffer.from(media.fileSha256).toString('hex') : null,
  }
  for (const [field, value] of Object.entries(extra))
    if (value !== null && value !== undefined) Object.assign(facts, { [field]: value })
  return facts
}

/** A file to send as one kind of media. */
export interface MediaContent<Kind extends string> {
  kind: Kind
  media: Buffer
  mimetype?: string
  fileName?: string
  caption?: string
  /** Images and videos: the recipient can open it once. */
  viewOnce?: boolean
}

/** The file of a send, fetched or uploaded, typed from its content. */
export interface SendFile {
  data: Buffer
  kind: MediaKind
  mimetype: string
  /** Set for documents: the name the recipient sees. */
  fileName?: string
}

/** send_message's parameters by their API names, as read (strings, numbers, booleans, lists, a file). */
export type SendParams = Readonly<Record<string, unknown>>

/** What the sender lends a kind to build its content in the instance's turn. */
export interface SendTools {
  /** The text or caption (`message`), undefined when empty. */
  text: string | undefined
  /** The send's file: fetched from media_url, decoded from media_base64, or the uploaded part. */
  file(): Promise<SendFile>
  /** The file is not the kind the send's type needs (media_unavailable naming the parameter). */
  notA(kind: string, mimetype: string): AppError
  /** Any audio as the Ogg/Opus of a push-to-talk note, and its type. */
  toOggOpus(audio: Buffer): Promise<{ media: Buffer; mimetype: string }>
  /** Any image as a 512×512 WebP. */
  toSquareWebp(image: Buffer): Promise<Buffer>
  /** The preview of a text's first link, when one can be read. */
  linkPreview(text: string): Promise<LinkPreview | undefined>
}

/** A link preview attached to a text: the page's address, the link as the text has it, and what the page says. */
export interface LinkPreview {
  url: string
  matchedText: string
  title: string
  description?: string
  /** A small JPEG. */
  thumbnail?: Buffer
}

/** A send_message parameter of some types only: refused with the others. */
export interface SendField extends FieldSpec {
  /** The send types that take it (those of the kinds sharing it). */
  types: readonly string[]
  /** Where the API's documentation lists it, when not in the order the parameters are checked. */
  listedAfter?: string
}

/** How a kind is sent with send_message: its `type`, its parameters and their rules, and what it builds. */
export interface SendKind<Content> {
  /** The value of send_message's `type`. */
  type: string
  /** A request of this type, as the API's document shows it: its parameters beside instance_id and number. */
  example: { summary: string; params: Record<string, string | number | boolean | readonly string[]> }
  /** Its parameters, in the order they are checked when given to another type. */
  fields: Readonly<Record<string, SendField>>
  /**
   * One of the seed's two types (text, media): their parameters are checked in the seed's order and words,
   * after the mentions and the text's length.
   */
  seed?: boolean
  /** It takes `message` (its text or caption), and whether it cannot go without it. */
  text?: 'required' | 'optional'
  /** It is sent from a file: media_url, media_base64 or a file part, one of which it needs. */
  file?: boolean
  /** The other parameters it cannot go without, checked once no foreign one is given. */
  required?: readonly string[]
  /** Checks that need no network, after the required parameters (AppErrors). */
  validate?(params: SendParams): void
  /** The content to send, built in the instance's turn. */
  build(params: SendParams, tools: SendTools): Promise<Content>
  /**
   * What the idempotency fingerprint records of its own parameters, before and after the ones any type takes,
   * in the order keys were always recorded (so keys recorded before still match).
   */
  fingerprint?(params: SendParams): { before?: Record<string, unknown>; after?: Record<string, unknown> }
}

/** How a form field's value goes into the request it builds. */
export type FormValue =
  /** The text as typed. */
  | 'text'
  /** A decimal number. */
  | 'number'
  /** One item a line, blank lines left out. */
  | 'lines'
  /** `<name>: <number>` lines as `{ name, phone }` cards. */
  | 'cards'
  /** A checkbox: `true` when ticked, left out otherwise. */
  | 'flag'
  /** A chosen file: its address (composer) or its base64 and type (sandbox panel). */
  | 'file'

/** One field of a kind's form, as plain data: the window renders every kind's fields with one renderer. */
export interface FormField {
  /** The draft's key for it (and the element id's suffix). */
  name: string
  /** Where its value goes in the request: a parameter, or a dotted path in a JSON body (`place.name`). */
  param: string
  value: FormValue
  label: string
  input: 'text' | 'textarea' | 'decimal' | 'url' | 'checkbox' | 'file'
  /** Always sent (a required form field); the others are sent only when filled in. */
  required?: boolean
  /** Sent only when this other field of the form is filled in too. */
  with?: string
  /** Required once this other field of the form is filled in. */
  requiredWith?: string
  /** Leading and trailing spaces dropped as it is typed. */
  trim?: boolean
  placeholder?: string
  hint?: string
  /** False for ids and numbers, which a spell checker only marks. */
  spellCheck?: boolean
  rows?: number
  /** For a `file` field: offer the document name, sent under this parameter (composer). */
  documentName?: string
  /** For a `file` field: offer to record it with the microphone (composer). */
  record?: boolean
}

/** A kind as one of a form's choices: its value there, its label, its fields and the constant parts it adds. */
export interface KindForm {
  kind: string
  label: string
  fields: readonly FormField[]
  /** Values the request always carries for this kind (`media_as`). */
  constants?: Readonly<Record<string, string>>
}

/** How the event log's one-line summary shows a message of this kind, read from its event data. */
export type SummaryRule =
  /** A note: `<label> <seconds> s`, when the media's flag is set. */
  | { shows: 'note'; flag: string; label: string }
  /** A place, from the data's field: `<label> <name> (<degrees>, <degrees>)`. */
  | { shows: 'place'; field: string; label: string }
  /** Cards, from the data's field: `<label> <name> <phones>; …`. */
  | { shows: 'cards'; field: string; label: string }

/** Everything about one message kind that the rest of the app reads. */
export interface KindModule {
  /** The kind's name (its module's). */
  name: string
  /** How incoming protocol content of this kind is read. */
  reads?: ContentReaders
  /** How the content it builds is written for the network. */
  writes?: ContentWriters
  /** How it is sent with send_message. */
  send?: SendKind<{ kind: string }>
  /** Its choices in the composer and in the sandbox panel. */
  forms?: { composer?: KindForm; sandbox?: KindForm }
  /** How the event log sums it up, where it reads more than its type and text. */
  summary?: SummaryRule
}

/** The digits of a phone number as people write it (`+1 (555) 123-4567`), or undefined. */
export function phoneDigits(value: string): string | undefined {
  const digits = value.replace(/[\s()+.-]/g, '')
  return /^[1-9]\d{5,14}$/.test(digits) ? digits : undefined
}
