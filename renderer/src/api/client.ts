import { ApiError } from './api-error'

/** Calls flat API operations with the UI credential, turning the error envelope into an ApiError. */
export interface ApiClient {
  readonly apiBase: string
  call<T>(operation: string, params?: Record<string, unknown>): Promise<T>
  /** A route that is not a flat operation (sandbox control, uploads): `path` is relative to the API base. */
  request<T>(method: 'GET' | 'POST', path: string, body?: RequestBody): Promise<T>
  /** A file this server serves at `url` (an address one of its answers gave), read with the credential. */
  fetchBlob(url: string): Promise<Blob>
  /** The live event stream's address with this window's credential (EventSource cannot set headers). */
  streamUrl(params: Record<string, string>): string
}

/** JSON, or a file sent as the raw body. */
export type RequestBody = { json: Record<string, unknown> } | { file: Blob }

interface ErrorEnvelope {
  status: 'error'
  code: string
  message: string
  details?: Record<string, unknown>
}

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null) return false
  const candidate = body as Record<string, unknown>
  return (
    candidate.status === 'error' &&
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string'
  )
}

/** POSTs `params` as JSON to `${apiBase}/${operation}`; a `uiToken` of null calls without credentials. */
export function callOperation<T>(
  apiBase: string,
  uiToken: string | null,
  operation: string,
  params: Record<string, unknown> = {},
  fetchImpl: typeof fetch = fetch,
): Promise<T> {
  return requestPath<T>(apiBase, uiToken, 'POST', operation, { json: params }, fetchImpl)
}

async function requestPath<T>(
  apiBase: string,
  uiToken: string | null,
  method: 'GET' | 'POST',
  path: string,
  content: RequestBody | undefined,
  fetchImpl: typeof fetch,
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (uiToken) headers.authorization = `Bearer ${uiToken}`
  let payload: BodyInit | undefined
  if (content && 'json' in content) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(content.json)
  } else if (content) {
    headers['content-type'] = content.file.type || 'application/octet-stream'
    payload = content.file
  }
  let response: Response
  try {
    response = await fetchImpl(`${apiBase}/${path}`, { method, headers, body: payload })
  } catch {
    throw new ApiError(
      'network_error',
      'Cannot reach the Linkdesk server: check that it is still running.',
      0,
    )
  }
  let body: unknown
  try {
    body = await response.json()
  } catch {
    throw new ApiError(
      'invalid_answer',
      `The server answered ${response.status} without a readable body: check that it is Linkdesk.`,
      response.status,
    )
  }
  if (isErrorEnvelope(body)) throw new ApiError(body.code, body.message, response.status, body.details)
  if (!response.ok) {
    throw new ApiError(
      'invalid_answer',
      `The server answered ${response.status} unexpectedly.`,
      response.status,
    )
  }
  return body as T
}

/** A client with the desktop window's credential, or (null) a browser's session cookie, sent by itself. */
export function createApiClient(
  apiBase: string,
  uiToken: string | null,
  fetchImpl: typeof fetch = fetch,
): ApiClient {
  return {
    apiBase,
    call: (operation, params) => callOperation(apiBase, uiToken, operation, params, fetchImpl),
    request: (method, path, body) => requestPath(apiBase, uiToken, method, path, body, fetchImpl),
    fetchBlob: async (url) => {
      const response = await fetchImpl(
        url,
        uiToken ? { headers: { authorization: `Bearer ${uiToken}` } } : {},
      )
      if (!response.ok)
        throw new ApiError(
          'invalid_answer',
          `The server answered ${response.status} for the file.`,
          response.status,
        )
      return response.blob()
    },
    streamUrl: (params) =>
      `${apiBase}/stream?${new URLSearchParams({ ...params, ...(uiToken && { access_token: uiToken }) }).toString()}`,
  }
}
