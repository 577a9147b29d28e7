import { ApiError } from './api-error'

/** Calls flat API operations with the UI credential, turning the error envelope into an ApiError. */
export interface ApiClient {
  readonly apiBase: string
  call<T>(operation: string, params?: Record<string, unknown>): Promise<T>
}

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
export async function callOperation<T>(
  apiBase: string,
  uiToken: string | null,
  operation: string,
  params: Record<string, unknown> = {},
  fetchImpl: typeof fetch = fetch,
): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (uiToken) headers.authorization = `Bearer ${uiToken}`
  let response: Response
  try {
    response = await fetchImpl(`${apiBase}/${operation}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(params),
    })
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

export function createApiClient(
  apiBase: string,
  uiToken: string,
  fetchImpl: typeof fetch = fetch,
): ApiClient {
  return {
    apiBase,
    call: (operation, params) => callOperation(apiBase, uiToken, operation, params, fetchImpl),
  }
}
