import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Coordinator } from '../contract/coordination'
import type { Principal } from '../contract/principal'
import { AppError } from '../errors'
import type { SettingsStore } from '../store/settings-store'
import type { InstanceAccess, OperationRoute } from './operation'
import { UploadedFile } from './params'

/** The key a forwarding node presents (the cluster's shared one) and the caller it authenticated. */
export const FORWARD_KEY_HEADER = 'x-linkdesk-forward-key'
export const PRINCIPAL_HEADER = 'x-linkdesk-principal'
/** On every answer of a node in a cluster: the node that ran the operation. */
export const NODE_HEADER = 'x-linkdesk-node'

/** How long a forwarded request may take: the longest operation waits (45 s) and a margin. */
const FORWARD_TIMEOUT_MS = 60_000

/**
 * The caller a peer authenticated, when the request carries the key the coordinator vouches for; undefined for
 * any other request (which authenticates as usual).
 */
function forwardedPrincipal(
  headers: FastifyRequest['headers'],
  coordinator: Pick<Coordinator, 'vouchesFor'>,
): Principal | undefined {
  const presented = headers[FORWARD_KEY_HEADER]
  const principal = headers[PRINCIPAL_HEADER]
  if (typeof presented !== 'string' || typeof principal !== 'string' || !coordinator.vouchesFor(presented))
    return undefined
  const parsed = JSON.parse(Buffer.from(principal, 'base64url').toString('utf8')) as Principal
  return parsed.kind === 'token' || parsed.kind === 'operator' ? parsed : undefined
}

/** What the API needs of the coordinator: this node's name, where calls go, and which callers peers vouch for. */
export interface CallRouting {
  /** Said on every answer (`x-linkdesk-node`) by a node that has one. */
  nodeId: string | undefined
  route: OperationRoute
  forwarded(headers: FastifyRequest['headers']): Principal | undefined
}

/**
 * Where calls go: a call for an instance runs on its owner, a new instance on the node it is placed on (here,
 * always, for a single node); `route` resolves true once a peer answered it.
 */
export function callRouting(
  coordinator: Coordinator,
  deps: {
    settings: Pick<SettingsStore, 'reloadRecord'>
    access: InstanceAccess
    known(instanceId: string): boolean
  },
): CallRouting {
  const route: OperationRoute = async ({ instanceId, principal, request, reply }) => {
    const fromPeer = forwardedPrincipal(request.headers, coordinator) !== undefined
    if (instanceId !== undefined) {
      // An instance a peer made a moment ago may not have reached this node's copy of the settings yet.
      if (!deps.known(instanceId)) await deps.settings.reloadRecord('instances', instanceId)
      deps.access(instanceId, principal)
    }
    const where =
      instanceId === undefined
        ? await coordinator.placeNew(fromPeer)
        : await coordinator.route(instanceId, fromPeer)
    if (where.kind === 'here') return false
    await forward(request, reply, where, { key: coordinator.forwardKey, principal })
    return true
  }
  return {
    nodeId: coordinator.nodeId,
    route,
    forwarded: (headers) => forwardedPrincipal(headers, coordinator),
  }
}

/**
 * Answers a request through the peer that owns its instance: the same path and query, the parameters the
 * body carried (a file part as a file part again), the caller as this node authenticated it; the peer's
 * status, type and body come back as they are.
 */
async function forward(
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
