import type { UploadedMedia } from '../contract/media'
import { createHash } from 'node:crypto'
import { posix } from 'node:path'
import { type Dispatcher, request } from 'undici'
import { AppError } from '../errors'
import type { Logger } from '../logger'
import {
  type MediaKind,
  type SniffedType,
  essence,
  refineContainerType,
  sniffMediaType,
  textDocumentType,
} from './media-kind'

/** A file fetched from media_url, checked and ready to hand to the network. */
export interface FetchedMedia {
  data: Buffer
  kind: MediaKind
  mimetype: string
  /** Set for documents: the name the recipient sees. */
  fileName?: string
  /** Hex SHA-256 of the content. */
  sha256: string
}

export interface MediaFetchOptions {
  maxBytes: number
  timeoutMs: number
  /** Makes the file a document with this name. */
  fileName?: string
  log: Logger
  /** Connects for the fetch (e.g. to public addresses only); undici's global one by default. */
  dispatcher?: Dispatcher
}

const MAX_REDIRECTS = 5

/** The parameter the media came from: fetched from media_url, or uploaded as the file part. */
type MediaSource = 'media_url' | 'file' | 'media_base64'

function unavailable(reason: string, cause?: unknown, source: MediaSource = 'media_url'): AppError {
  return new AppError('media_unavailable', `${source} ${reason}`, {
    details: { parameter: source },
    cause,
  })
}

function tooLarge(maxBytes: number, source: MediaSource = 'media_url'): AppError {
  return new AppError(
    'payload_too_large',
    `${source} is larger than the ${formatBytes(maxBytes)} media limit.`,
    {
      details: { parameter: source, limit_bytes: maxBytes },
    },
  )
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

function httpUrl(value: string | URL, base?: URL): URL {
  let url: URL
  try {
    url = new URL(value, base)
  } catch (error) {
    throw unavailable('redirected to an address that is not a valid URL.', error)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw unavailable(base ? 'redirected to a non-http(s) address.' : 'must be an http:// or https:// URL.')
  }
  return url
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function failureCode(error: unknown): string | undefined {
  const failure = error as { code?: string; cause?: { code?: string } } | undefined
  return failure?.code ?? failure?.cause?.code
}

function describeFailure(code: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'could not be fetched: the connection was refused.'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'could not be fetched: the host name was not found.'
    case 'EPRIVATEADDRESS':
      return 'could not be fetched: it is not on a public address.'
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'could not be fetched: the server stopped answering.'
    default:
      return 'could not be fetched.'
  }
}

/** The kind and type to send this content as; media_unavailable when it is not a file that can be sent. */
export function classifyMedia(
  data: Uint8Array,
  contentType: string | undefined,
  fileName: string | undefined,
  source: MediaSource = 'media_url',
): SniffedType {
  const sniffed = sniffMediaType(data)
  if (fileName !== undefined) {
    const declared = essence(contentType)
    const mimetype =
      sniffed?.mimetype ?? (declared && declared !== 'text/html' ? declared : 'application/octet-stream')
    return { mimetype, kind: 'document', extension: sniffed?.extension ?? 'bin' }
  }
  if (sniffed) return refineContainerType(sniffed, contentType)
  const text = textDocumentType(contentType)
  if (text) return text
  if (essence(contentType) === 'text/html') {
    throw unavailable(
      source === 'media_url'
        ? 'returned a web page, not a file: check the URL, or give filename to send it as a document.'
        : 'is a web page: give filename to send it as a document.',
      undefined,
      source,
    )
  }
  throw unavailable(
    'is not a supported file (images, videos, audio, PDF and office documents are; give filename to send any file as a document).',
    undefined,
    source,
  )
}

function documentName(url: URL, extension: string): string {
  let last = ''
  try {
    last = decodeURIComponent(posix.basename(url.pathname))
  } catch {
    last = ''
  }
  return safeDocumentName(last, extension)
}

/** A name the recipient's system can store: no path or reserved characters, with an extension. */
function safeDocumentName(last: string, extension: string): string {
  const safe = [...last]
    .filter((char) => char >= ' ' && !'\\/:*?"<>|'.includes(char))
    .join('')
    .slice(0, 120)
  return safe.includes('.') ? safe : `file.${extension}`
}

/** Lets go of a body we do not read, without an unhandled stream error. */
async function discard(body: { dump(options?: { limit: number }): Promise<void> }): Promise<void> {
  await body.dump({ limit: 64 * 1024 }).catch(() => undefined)
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    // Leaving the loop by a throw ends the iterator, which destroys the body.
    if (size > maxBytes) throw tooLarge(maxBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, size)
}

/** A body fetched under the media rules, with the type its server declared and the address it came from. */
export interface FetchedBody {
  data: Buffer
  contentType: string | undefined
  url: URL
}

/**
 * Fetches an address ourselves (not through Baileys, whose fetch has no timeout or size cap): http(s) only,
 * redirects followed only to http(s), at most maxBytes within timeoutMs, never an empty body.
 */
export async function fetchCapped(
  address: string,
  options: Omit<MediaFetchOptions, 'fileName'>,
): Promise<FetchedBody> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  let url = httpUrl(address)
  const log = options.log.child({ mediaHost: url.host })
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await request(url, {
        method: 'GET',
        signal,
        dispatcher: options.dispatcher,
        headers: { accept: '*/*', 'user-agent': 'Linkdesk' },
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      })
      const { statusCode, headers, body } = response
      if (statusCode >= 300 && statusCode < 400 && header(headers, 'location')) {
        await discard(body)
        if (redirects >= MAX_REDIRECTS) throw unavailable(`redirected more than ${MAX_REDIRECTS} times.`)
        url = httpUrl(header(headers, 'location') as string, url)
        continue
      }
      if (statusCode < 200 || statusCode >= 300) {
        await discard(body)
        throw unavailable(`could not be fetched: the server answered HTTP ${statusCode}.`)
      }
      const declaredLength = Number(header(headers, 'content-length'))
      if (Number.isFinite(declaredLength) && declaredLength > options.maxBytes) {
        await discard(body)
        throw tooLarge(options.maxBytes)
      }
      const data = await readCapped(body, options.maxBytes)
      if (data.length === 0) throw unavailable('returned an empty file.')
      return { data, contentType: header(headers, 'content-type'), url }
    }
  } catch (error) {
    if (error instanceof AppError) throw error
    if (signal.aborted) {
      throw unavailable(`could not be fetched within ${Math.round(options.timeoutMs / 1000)} s.`, error)
    }
    // The error text may carry the URL (and its secrets): log the code only.
    const code = failureCode(error)
    log.debug({ code }, 'media fetch failed')
    throw unavailable(describeFailure(code), error)
  }
}

/**
 * The checked file as the network takes it, with its content's hash. A document is named by `fileName`
 * when given, else by `nameDocument`.
 */
function readyMedia(
  data: Buffer,
  type: SniffedType,
  fileName: string | undefined,
  nameDocument: () => string,
): FetchedMedia {
  return {
    data,
    kind: type.kind,
    mimetype: type.mimetype,
    fileName: type.kind === 'document' ? (fileName ?? nameDocument()) : undefined,
    sha256: createHash('sha256').update(data).digest('hex'),
  }
}

/** Fetches media_url under the media rules (see fetchCapped), then types it from its first bytes. */
export async function fetchMedia(mediaUrl: string, options: MediaFetchOptions): Promise<FetchedMedia> {
  const { data, contentType, url } = await fetchCapped(mediaUrl, options)
  const type = classifyMedia(data, contentType, options.fileName)
  options.log.debug({ kind: type.kind, mimetype: type.mimetype, bytes: data.length }, 'media fetched')
  return readyMedia(data, type, options.fileName, () => documentName(url, type.extension))
}

/**
 * Types an uploaded file exactly as a fetched one (same limit, same content sniffing); a document is named
 * by `filename`, else by the part's own filename.
 */
export function uploadedMedia(
  upload: UploadedMedia,
  options: { maxBytes: number; fileName?: string; source?: 'file' | 'media_base64' },
): FetchedMedia {
  const { data } = upload
  const source = options.source ?? 'file'
  if (data.length > options.maxBytes) throw tooLarge(options.maxBytes, source)
  if (data.length === 0) throw unavailable('is an empty file.', undefined, source)
  const type = classifyMedia(data, upload.contentType, options.fileName, source)
  return readyMedia(data, type, options.fileName, () =>
    safeDocumentName(posix.basename(upload.fileName.replace(/\\/g, '/')), type.extension),
  )
}
