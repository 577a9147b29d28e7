import { Agent, request } from 'undici'

const agent = new Agent({ connections: 64, keepAliveTimeout: 60_000, pipelining: 1 })

/** POSTs JSON and answers the HTTP status and the parsed body; throws only on network errors. */
export async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  })
  const text = await response.body.text()
  return { status: response.statusCode, body: text ? JSON.parse(text) : undefined }
}

/** Like postJson, but fails unless the answer is 200 with status success. */
export async function postOk<T = Record<string, unknown>>(url: string, body: unknown): Promise<T> {
  const answer = await postJson(url, body)
  if (answer.status !== 200 || (answer.body as { status?: unknown } | undefined)?.status !== 'success') {
    throw new Error(`${url}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`)
  }
  return answer.body as T
}

export async function getOk<T = Record<string, unknown>>(url: string): Promise<T> {
  const response = await request(url, { dispatcher: agent, headersTimeout: 30_000 })
  const body = JSON.parse(await response.body.text())
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${JSON.stringify(body)}`)
  return body as T
}

/** GETs a text body and fails unless the answer is 200. */
export async function getText(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await request(url, { dispatcher: agent, headers, headersTimeout: 30_000 })
  const text = await response.body.text()
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${text.slice(0, 300)}`)
  return text
}
