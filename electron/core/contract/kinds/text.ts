import type { LinkPreviewInfo } from '../message'
import type { KindModule, LinkPreview, SendParams } from './kind-module'

/** A text, with the preview of its first link when the send asks for one. */
export interface TextContent {
  kind: 'text'
  text: string
  linkPreview?: LinkPreview
}

/** A text with more than its words, as the protocol carries it. */
interface ProtocolExtendedText {
  text?: string | null
  matchedText?: string | null
  title?: string | null
  description?: string | null
}

/** A text's link preview: the link as matched in the text, with the title or description the sender attached. */
function linkPreviewOf(text: ProtocolExtendedText): LinkPreviewInfo | undefined {
  if (!text.matchedText || (!text.title && !text.description)) return undefined
  return { url: text.matchedText, title: text.title ?? null, description: text.description ?? null }
}

/** `message`: the text of a text, the caption of a file (media takes it too). */
const MESSAGE_FIELD = {
  type: 'string',
  description: 'The text (required for `text`), or the caption of media.',
  example: 'Hello from Linkdesk',
  types: ['text', 'media'],
  listedAfter: 'type',
} as const

/** A text message: `type=text` with `message`, and an optional link preview. */
export const TEXT_KIND: KindModule = {
  name: 'text',
  reads: {
    conversation: { type: 'text', read: (text: string) => ({ text }) },
    extendedTextMessage: {
      type: 'text',
      read: (extended: ProtocolExtendedText) => ({
        text: extended.text,
        link_preview: linkPreviewOf(extended),
      }),
    },
  },
  writes: {
    // Without a preview the text goes as the seed sent it; the network library never fetches one itself.
    text: {
      // The answer keeps the seed's shape: the text as an extendedTextMessage, with the preview's words.
      answer: ({ text, linkPreview }: TextContent) => ({
        extendedTextMessage: {
          text,
          ...(linkPreview
            ? {
                matchedText: linkPreview.matchedText,
                title: linkPreview.title,
                description: linkPreview.description,
              }
            : {}),
        },
      }),
      write: ({ text, linkPreview }: TextContent) =>
        linkPreview
          ? {
              text,
              linkPreview: {
                'canonical-url': linkPreview.url,
                'matched-text': linkPreview.matchedText,
                title: linkPreview.title,
                description: linkPreview.description,
                jpegThumbnail: linkPreview.thumbnail,
              },
            }
          : { text },
    },
  },
  send: {
    type: 'text',
    example: {
      summary: 'A text (the seed’s shape)',
      params: { type: 'text', message: 'Hello from Linkdesk' },
    },
    seed: true,
    text: 'required',
    fields: {
      link_preview: {
        type: 'boolean',
        description:
          'For `text`: attach a preview (title, description, picture) of the first http(s) link in the text. Off by default. The page is fetched by Linkdesk from public addresses only, within 5 s; when it cannot be read the text goes without a preview.',
        example: true,
        types: ['text'],
        listedAfter: 'mentions',
      },
      message: MESSAGE_FIELD,
    },
    // `message` is checked by the sender with the seed's own words.
    async build(params: SendParams, { text, linkPreview }): Promise<TextContent> {
      // In the instance's turn, like a media fetch: bounded by its timeout, after which the text goes alone.
      const preview = params.link_preview ? await linkPreview(text as string) : undefined
      return { kind: 'text', text: text as string, ...(preview ? { linkPreview: preview } : {}) }
    },
    fingerprint: (params) => ({ after: { linkPreview: params.link_preview || undefined } }),
  },
  forms: {
    composer: {
      kind: 'text',
      label: 'Text',
      fields: [
        {
          name: 'message',
          param: 'message',
          value: 'text',
          label: 'Message',
          input: 'textarea',
          required: true,
          rows: 4,
        },
        {
          name: 'linkPreview',
          param: 'link_preview',
          value: 'flag',
          label: 'Link preview',
          input: 'checkbox',
        },
      ],
    },
    sandbox: {
      kind: 'text',
      label: 'Text',
      fields: [
        {
          name: 'text',
          param: 'text',
          value: 'text',
          label: 'Message',
          input: 'textarea',
          required: true,
          rows: 2,
        },
        {
          name: 'linkUrl',
          param: 'link_preview.url',
          value: 'text',
          label: 'Link preview address (optional)',
          input: 'url',
          trim: true,
          with: 'linkTitle',
        },
        {
          name: 'linkTitle',
          param: 'link_preview.title',
          value: 'text',
          label: 'Link preview title',
          input: 'text',
          with: 'linkUrl',
          requiredWith: 'linkUrl',
        },
      ],
    },
  },
}
