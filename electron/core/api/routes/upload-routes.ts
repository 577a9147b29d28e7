import { randomBytes } from 'node:crypto'
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors'
import type { UploadView } from '../../shared-types'
import type { RoutePlugin } from '../build-api'

export interface UploadRoutesDeps {
  dataDir: string
  /** Largest upload, bytes (the media limit: a bigger file could not be sent anyway). */
  maxBytes: number
  /** How long an upload can be fetched, milliseconds. */
  ttlMs?: number
  /** The API base URL once the server listens, for the answer's `url`. */
  apiBase: () => string
}

const DEFAULT_TTL_MS = 60 * 60_000
const UPLOAD_ID = /^[A-Za-z0-9_-]{22}$/

/**
 * `POST {base}/uploads` stores a local file (the raw body) for a later send_message, and answers the address
 * to pass as its media_url: `GET {base}/uploads/{id}` serves the file, without a token (the fetcher sends none;
 * the 128-bit id is the capability) until it expires. This is how the window sends a file from the disk; a
 * script may do the same with `curl --data-binary @file`.
 */
export function uploadRoutes(deps: UploadRoutesDeps): RoutePlugin {
  const folder = join(deps.dataDir, 'uploads')
  const ttlMs = deps.ttlMs ?? DEFAULT_TTL_MS
  return (app, { prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.removeAllContentTypeParsers()
        scoped.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.maxBytes }, (_r, body, done) =>
          done(null, body),
        )
        scoped.post('/', { config: { auth: 'token' } }, async (request) => {
          const data = request.body
          if (!Buffer.isBuffer(data) || data.length === 0) {
            throw new AppError('missing_parameter', 'Send the file as the request body.')
          }
          await mkdir(folder, { recursive: true, mode: 0o700 })
          await sweepExpired(folder, ttlMs)
          const id = randomBytes(16).toString('base64url')
          await writeFile(join(folder, id), data, { mode: 0o600 })
          await writeFile(join(folder, `${id}.type`), declaredType(request.headers['content-type']), {
            mode: 0o600,
          })
          const answer: UploadView = {
            upload_id: id,
            url: `${deps.apiBase()}/uploads/${id}`,
            size: data.length,
            expires_at: Math.floor((Date.now() + ttlMs) / 1000),
          }
          return { status: 'success', message: 'File stored: pass url as media_url', ...answer }
        })
        scoped.get<{ Params: { id: string } }>('/:id', async (request, reply) => {
          const { id } = request.params
          if (!UPLOAD_ID.test(id)) throw new AppError('not_found')
          const path = join(folder, id)
          const info = await stat(path).catch(() => undefined)
          if (!info || info.mtimeMs + ttlMs < Date.now()) throw new AppError('not_found')
          const type = await readFile(`${path}.type`, 'utf8').catch(() => 'application/octet-stream')
          return reply
            .header('content-type', type)
            .header('cache-control', 'private, no-store')
            .send(await readFile(path))
        })
      },
      { prefix: `${prefix}/uploads` },
    )
  }
}

/** The type the uploader declared, served back so the media fetcher can use it; anything odd is a plain file. */
function declaredType(header: string | undefined): string {
  const type = (header ?? '').split(';')[0]!.trim().toLowerCase()
  return /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type) ? type : 'application/octet-stream'
}

async function sweepExpired(folder: string, ttlMs: number): Promise<void> {
  const cutoff = Date.now() - ttlMs
  for (const name of await readdir(folder)) {
    const path = join(folder, name)
    const info = await stat(path).catch(() => undefined)
    if (info && info.mtimeMs < cutoff) await rm(path, { force: true })
  }
}
