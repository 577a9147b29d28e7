import { checks } from '../../schema'
import type { FormField, SendField } from './kind-module'

/** `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '')
}

/**
 * Where the file of a kind sent from a file comes from (`types`, the send types that are): a URL Linkdesk
 * fetches, a file part, or base64 in the body.
 */
export function fileFields(types: readonly string[]): Record<string, SendField> {
  return {
    media_url: {
      type: 'string',
      maxLength: 4096,
      check: checks.httpUrl,
      description: 'For `media`: the http(s) URL of the file.',
      example: 'https://example.com/photo.jpg',
      types,
    },
    file: {
      type: 'file',
      description:
        'For `media`, instead of `media_url`: the file itself, as the file part of a multipart/form-data body (same size limit and typing).',
      types,
    },
    media_base64: {
      type: 'string',
      description: `For ${listed(types)}, instead of \`media_url\`: the file as base64 (or a \`data:\` URL) in a JSON or form body, within the body limit; typed like an upload.`,
      example:
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      types,
    },
  }
}

/** The composer's file: a URL, or a local file uploaded first. */
export function composerFile(options: Partial<Pick<FormField, 'documentName' | 'record'>> = {}): FormField {
  return {
    name: 'mediaUrl',
    param: 'media_url',
    value: 'file',
    label: 'File',
    input: 'file',
    required: true,
    ...options,
  }
}

/** The sandbox panel's file, sent as base64 with its type. */
export function sandboxFile(hint?: string): FormField {
  return {
    name: 'file',
    param: 'media_base64',
    value: 'file',
    label: 'File',
    input: 'file',
    required: true,
    ...(hint ? { hint } : {}),
  }
}
