import { AppError } from '../../errors'
import type { MediaKind } from '../message'
import type { KindModule, MediaContent, SendParams } from './kind-module'
import { composerFile, sandboxFile } from './file-fields'

/** A reason when `filename` is not a plain file name (a path, or control characters). */
function fileNameProblem(value: string): string | undefined {
  const plain = [...value].every((char) => char >= ' ' && char !== '/' && char !== '\\')
  return plain ? undefined : 'must be a file name, without / or \\.'
}

/**
 * A file (`type=media`), sent as what its content is: a picture, a video or a sound as such, anything else
 * (or any file given a `filename`) as a document. Its content is written by the image, video, audio and
 * document kinds.
 */
export const MEDIA_KIND: KindModule = {
  name: 'media',
  send: {
    type: 'media',
    example: {
      summary: 'A file from a URL (a document with filename)',
      params: {
        type: 'media',
        media_url: 'https://example.com/report.pdf',
        filename: 'report.pdf',
        message: 'Report',
      },
    },
    seed: true,
    text: 'optional',
    file: true,
    fields: {
      filename: {
        type: 'string',
        maxLength: 255,
        check: fileNameProblem,
        description: 'For `media`: send the file as a document with this name.',
        example: 'invoice.pdf',
        types: ['media'],
        listedAfter: 'file',
      },
      view_once: {
        type: 'boolean',
        description: 'For `media` images and videos: the recipient can open it once.',
        example: true,
        types: ['media'],
      },
    },
    async build(params: SendParams, { text, file }): Promise<MediaContent<MediaKind>> {
      const media = await file()
      if (params.view_once) {
        if (media.kind !== 'image' && media.kind !== 'video') {
          throw new AppError(
            'invalid_parameter',
            `view_once is for images and videos, not ${media.mimetype}.`,
            {
              details: { parameter: 'view_once' },
            },
          )
        }
        return {
          kind: media.kind,
          media: media.data,
          mimetype: media.mimetype,
          caption: text,
          viewOnce: true,
        }
      }
      return {
        kind: media.kind,
        media: media.data,
        mimetype: media.mimetype,
        fileName: media.fileName,
        caption: media.kind === 'audio' ? undefined : text,
      }
    },
    fingerprint: (params) => ({ after: { viewOnce: params.view_once } }),
  },
  forms: {
    composer: {
      kind: 'media',
      label: 'A file (image, video, audio or document)',
      fields: [
        {
          name: 'message',
          param: 'message',
          value: 'text',
          label: 'Caption (optional)',
          input: 'textarea',
          rows: 4,
        },
        composerFile({ documentName: 'filename' }),
        {
          name: 'viewOnce',
          param: 'view_once',
          value: 'flag',
          label: 'View once (images and videos)',
          input: 'checkbox',
        },
      ],
    },
    sandbox: {
      kind: 'file',
      label: 'A file',
      fields: [
        { ...sandboxFile(), documentName: 'filename' },
        {
          name: 'text',
          param: 'caption',
          value: 'text',
          label: 'Caption (optional)',
          input: 'textarea',
          rows: 2,
        },
        { name: 'viewOnce', param: 'view_once', value: 'flag', label: 'View once', input: 'checkbox' },
      ],
    },
  },
}
