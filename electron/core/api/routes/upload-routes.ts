import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors'
import type { Uploads } from '../../store/uploads'
import type { UploadView } from '../../shared-types'
import type { RoutePlugin } from '../build-api'
import { FILE_TYPES, type RouteDoc } from '../openapi-route'

export interface UploadRoutesDeps {
  uploads: Uploads
  /** Largest upload, bytes (the media limit: a bigger file could not be sent anyway). */
  maxBytes: number
  /** The API base URL (the port is bound before the parts are built), for the answer's `url`. */
  apiBase: string
}

const UPLOAD_DOC: RouteDoc = {
  tag: 'Messages',
  summary: 'Store a file (the raw body) for a later send_message; answers the URL to pass as media_url.',
  body: { contentType: '*/*', description: 'The file; its Content-Type is kept.' },
  answer: {
    json: {
      message: Type.String(),
      upload_id: Type.String(),
      url: Type.String({ description: 'The address to pass as media_url.' }),
      size: Type.Integer({ description: 'Bytes.' }),
      expires_at: Type.Integer({ description: 'Unix seconds: it is deleted then.' }),
    },
  },
}

const DOWNLOAD_DOC: RouteDoc = {
  tag: 'Messages',
  summary: 'A stored upload, without a token (its 128-bit id is the capability) until it expires.',
  params: { id: { description: 'The upload_id.', example: 'a3f1c2d4e5b6a7980112233445566778' } },
  answer: {
    contentTypes: FILE_TYPES,
    description: 'The file, with the type it was stored with.',
  },
}

/**
 * `POST {base}/uploads` stores a local file (the raw body) for a later send_message, and answers the address
 * to pass as its media_url: `GET {base}/uploads/{id}` serves the file, without a token (the fetcher sends none;
 * the 128-bit id is the capability) until it expires. This is how the window sends a file from the disk; a
 * script may do the same with `curl --data-binary @file`.
 */
export function uploadRoutes(deps: UploadRoutesDeps): RoutePlugin {
  return (app, { prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.removeAllContentTypeParsers()
        scoped.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxBytes }, (_r, body, done) =>
          done(null, body),
        )
        scoped.post('/', { config: { auth: 'token', openapi: UPLOAD_DOC } }, async (request) => {
          const data = request.body
          if (!Buffer.isBuffer(data) || data.length === 0) {
            throw new AppError('missing_parameter', 'Send the file as the request body.')
          }
          const stored = await deps.uploads.save(data, request.headers['content-type'])
          const answer: UploadView = {
            upload_id: stored.id,
            url: `${deps.apiBase}/uploads/${stored.id}`,
            size: stored.size,
            expires_at: Math.floor(stored.expiresAt / 1000),
          }
          return { status: 'success', message: 'File stored: pass url as media_url', ...answer }
        })
        scoped.get<{ Params: { id: string } }>(
          '/:id',
          { config: { openapi: DOWNLOAD_DOC } },
          async (request, reply) => {
            const upload = await deps.uploads.read(request.params.id)
            return reply
              .header('content-type', upload.type)
              .header('cache-control', 'private, no-store')
              .send(upload.data)
          },
        )
      },
      { prefix: `${prefix}/uploads` },
    )
  }
}
