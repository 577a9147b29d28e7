import type { FastifyReply, FastifyRequest } from 'fastify'
import { type Principal, sameSecret } from '../contract/principal'
import { UploadedFile } from '../api/params'
import { AppError } from '../errors'

/** The key a forwarding node presents (the cluster's shared one) and the caller it authenticated. */
export const FORWARD_KEY_HEADER = 'x-linkdesk-forward-key'
export const PRINCIPAL_HEADER = 'x-linkdesk-principal'
/** On every answer of a node in a cluster: the node that ran the operation. */
export const NODE_HEADER = 'x-linkdesk-node'

/** How long a forwarded request may take: the longest operation waits (45 s) and a margin. */
const FORWARD_TIMEOUT_MS = 60_000

/**
 * The caller a peer authenticated, when the request carries the cluster's key; undefined for any other
 * request (which authenticates as usual).
 */
export function forwardedPrincipal(headers: FastifyRequest['headers'], key: string): Principal | undefined {
  const presented = headers[FORWARD_KEY_HEADER]
  const principal = headers[PRINCIPAL_HEADER]
  if (typeof presented !== 'string' || typeof principal !== 'string' || !sameSecret(presented, key))
    return undefined
  const parsed = JSON.parse(Buffer.from(principal, 'base64url').toString('utf8')) as Principal
  return parsed.kind === 'token' || parsed.kind === 'operator' ? parsed : undefined
}

/**
 * Answers a request through the peer that owns its instance: the same path and query, the parameters the
 * body carried (a file part as a file part again), the caller as this node authenticated it; the peer's
 * status, type and body come back as they are.
 */
export async function forward(
  request: FastifyRequest,
  reply: FastifyReply,
  peer: { nodeId: string; address: string },
  context: { key: string; principal: Principal },
): Promise<void> {
  const body = request.method === 'GET' ? undefined : encodeBody(request.body)
  let response: Response
  try {
    response = await fetch(`${peer.address}${request.url}`, {
      method: request.method,
      headers: {
        [FORWARD_KEY_HEADER]: context.key,
        [PRINCIPAL_HEADER]: Buffer.from(JSON.stringify(context.principal)).toString('base64url'),
        ...(typeof body === 'string' && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body }),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
  } catch (error) {
    throw new AppError(
      'unavailable',
      'The node running this instance did not answer; if it is gone, another takes the instance over within seconds.',
      { cause: error, details: { node_id: peer.nodeId } },
    )
  }
  const data = Buffer.from(await response.arrayBuffer())
  reply.code(response.status)
  for (const name of ['content-type', NODE_HEADER, 'retry-after']) {
    const value = response.headers.get(name)
    if (value !== null) reply.header(name, value)
  }
  await reply.send(data)
}

/** The parameters a body carried: JSON, or a multipart form when one is a file. */
function encodeBody(body: unknown): string | FormData | undefined {
  if (body === undefined || body === null) return undefined
  const fields = Object.entries(body as Record<string, unknown>)
  if (!fields.some(([, value]) => [value].flat().some((item) => item instanceof UploadedFile)))
    return JSON.stringify(body)
  const form = new FormData()
  for (const [name, value] of fields) {
    for (const item of [value].flat()) {
      if (item instanceof UploadedFile) {
        const blob = new Blob([new Uint8Array(item.data)], item.contentType ? { type: item.contentType } : {})
        form.append(name, blob, item.fileName)
      } else form.append(name, typeof item === 'string' ? item : JSON.stringify(item))
    }
  }
  return form
}
