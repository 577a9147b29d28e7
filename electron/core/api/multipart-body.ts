import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, isAppError } from '../errors'
import { UploadedFile } from './params'

export interface MultipartLimits {
  /** Largest plain field, bytes (the request body limit). */
  fieldBytes: number
  /** Largest file part, bytes (the media limit: a bigger file could not be sent anyway). */
  fileBytes: number
}

/** Bounds what one request may hold in memory: a form has a few fields and at most one file. */
const MAX_FIELDS = 100
const MAX_FILES = 1

/**
 * Accepts multipart/form-data bodies (PHP curl with an array body, Python requests with `files=`, HTML
 * forms with file inputs) on every route that takes a body: plain fields become parameters exactly as from
 * a URL-encoded form, and a file part becomes an UploadedFile read within the media limit.
 */
export function acceptMultipart(app: FastifyInstance, limits: MultipartLimits): void {
  void app.register(multipart, {
    limits: {
      fieldSize: limits.fieldBytes,
      fileSize: limits.fileBytes,
      fields: MAX_FIELDS,
      files: MAX_FILES,
      parts: MAX_FIELDS + MAX_FILES,
    },
    throwFileSizeLimit: true,
  })
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart()) request.body = await readParts(request, limits)
  })
}

async function readParts(request: FastifyRequest, limits: MultipartLimits): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {}
  const add = (name: string, value: unknown) => {
    const earlier = body[name]
    // A repeated name stays visible as a list, which the parameter reader refuses as given more than once.
    body[name] = earlier === undefined ? value : [earlier, value].flat()
  }
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const data = await part.toBuffer()
        // An HTML form sends a file input left empty as a part without a name or content.
        if (data.length === 0 && part.filename === '') continue
        add(part.fieldname, new UploadedFile(data, part.filename, declaredType(part.mimetype, part.filename)))
      } else {
        if (part.valueTruncated) {
          throw new AppError(
            'payload_too_large',
            `${part.fieldname} is longer than the ${limits.fieldBytes}-byte limit of a form field.`,
            { details: { parameter: part.fieldname, limit_bytes: limits.fieldBytes } },
          )
        }
        add(part.fieldname, part.value)
      }
    }
  } catch (error) {
    throw multipartError(error, limits)
  }
  return body
}

/**
 * The part's own Content-Type. A part sent without one (Python requests' `files=`) is reported as
 * text/plain, RFC 7578's default, which must not make any file a text document: it counts only for a .txt.
 */
function declaredType(mimetype: string, fileName: string): string | undefined {
  if (!mimetype) return undefined
  return mimetype === 'text/plain' && !/\.txt$/i.test(fileName) ? undefined : mimetype
}

function multipartError(error: unknown, limits: MultipartLimits): AppError {
  if (isAppError(error)) return error
  switch ((error as { code?: string }).code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError(
        'payload_too_large',
        `The file part is larger than the ${limits.fileBytes}-byte media limit.`,
        { details: { limit_bytes: limits.fileBytes } },
      )
    case 'FST_FILES_LIMIT':
      return new AppError('payload_too_large', `Send at most ${MAX_FILES} file part per request.`)
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new AppError('payload_too_large', `Send at most ${MAX_FIELDS} form fields per request.`)
    default:
      return new AppError('invalid_body', 'The multipart/form-data body is malformed.', { cause: error })
  }
}
