import { createServer, type Server } from 'node:https'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../logger'
import { sha256 } from './media-crypto'
import type { MediaStore } from './media-store'
import type { MediaCertificate } from './media-certificate'

/** Uploads above this are refused (WhatsApp's own limit is about 100 MB for documents). */
const MAX_UPLOAD_BYTES = 100 * 1024 * 1024

export interface MediaHost {
  /** `host:port`, as media_conn announces it. */
  hostname: string
  /** The upload auth token media_conn hands out. */
  auth: string
  close(): Promise<void>
}

export interface MediaHostOptions {
  host: string
  /** 0 picks a free port. */
  port: number
  certificate: MediaCertificate
  store: MediaStore
  auth: string
  logger: Logger
}

/** The HTTPS "mmg" host: encrypted uploads at /mms/<type>/<token>, downloads by direct path. */
export async function startMediaHost(options: MediaHostOptions): Promise<MediaHost> {
  const { store, auth, logger } = options
  const server: Server = createServer(
    { cert: options.certificate.certPem, key: options.certificate.keyPem },
    (req, res) =>
      handle(req, res).catch((error: unknown) => {
        logger.warn({ err: error }, 'media request failed')
        if (!res.headersSent) res.writeHead(500)
        res.end()
      }),
  )

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://media.invalid')
    if (req.method === 'POST' && url.pathname.startsWith('/mms/')) return upload(req, res, url)
    if (req.method === 'GET') {
      const file = store.get(url.pathname)
      if (!file) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length })
      res.end(file)
      return
    }
    res.writeHead(405).end()
  }

  async function upload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > MAX_UPLOAD_BYTES) return void res.writeHead(413).end()
      chunks.push(chunk)
    }
    const body = Buffer.concat(chunks)
    const token = url.pathname.split('/').pop()
    if (url.searchParams.get('auth') !== auth || sha256(body).toString('base64url') !== token) {
      logger.debug({ path: url.pathname }, 'media upload refused: bad auth or hash')
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'bad auth or hash' }))
      return
    }
    const { directPath, url: mediaUrl } = store.put(body)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ url: mediaUrl, direct_path: directPath }))
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  const hostname = `${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`
  store.hostname = hostname
  return {
    hostname,
    auth,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
