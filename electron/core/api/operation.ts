import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../errors'
import { type Authenticator, type Principal, presentedToken } from './auth'
import { type Fields, type ParamsOf, mergeRawParams, readParams } from './params'

export interface OperationContext<P> {
  params: P
  principal: Principal
  request: FastifyRequest
  reply: FastifyReply
}

/**
 * One API operation: a flat name under the API root answering GET and POST alike, its parameters (read
 * from query and body), who may call it, and what it returns. The OpenAPI document is made from these.
 */
export interface Operation<F extends Fields = Fields> {
  name: string
  aliases?: readonly string[]
  tag: string
  summary: string
  description?: string
  fields: F
  /** token: scripts and the window; operator: the window only; none: anyone on this machine. */
  auth: 'token' | 'operator' | 'none'
  /** An example success body, shown in the docs. */
  example?: Record<string, unknown>
  handle(context: OperationContext<ParamsOf<F>>): Promise<unknown> | unknown
}

/** Declares an operation, keeping its parameter types. */
export function defineOperation<F extends Fields>(operation: Operation<F>): Operation<F> {
  return operation
}

/** Registers each operation (and its aliases) for GET and POST under `prefix`. */
export function registerOperations(
  app: FastifyInstance,
  prefix: string,
  operations: readonly Operation[],
  auth: Authenticator,
  knownPaths: Set<string>,
): void {
  for (const operation of operations) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const raw = mergeRawParams(request.query, request.body)
      const principal = principalFor(operation, auth, request, raw)
      const params = readParams(operation.fields, raw)
      const result = await operation.handle({ params, principal, request, reply })
      if (reply.sent) return reply
      return result
    }
    for (const name of [operation.name, ...(operation.aliases ?? [])]) {
      const url = `${prefix}/${name}`
      knownPaths.add(url)
      app.route({ method: ['GET', 'POST'], url, handler })
    }
  }
}

function principalFor(
  operation: Operation,
  auth: Authenticator,
  request: FastifyRequest,
  raw: Record<string, unknown>,
): Principal {
  if (operation.auth === 'none') return { kind: 'anonymous' }
  const principal = auth.authenticate(presentedToken(request.headers, raw))
  if (operation.auth === 'operator' && principal.kind !== 'operator') {
    throw new AppError('unauthorized', 'This operation is only for the Linkdesk window.')
  }
  return principal
}
