import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { InstanceRecord } from '../store/settings-store'
import type { TSchema } from '../schema'
import type { Principal } from '../contract/principal'
import type { AuthRequirement } from './authentication'
import { type FieldSpec, type Fields, type ParamsOf, mergeRawParams, readParams } from './params'

/**
 * The instance a caller may touch: its record, or instance_not_found, answered alike for an unknown id and
 * for another token's instance. Every operation and route that acts on an instance goes through it.
 */
export type InstanceAccess = (instanceId: string, principal: Principal) => InstanceRecord

export interface OperationContext<P, I extends boolean = boolean> {
  params: P
  principal: Principal
  /** The caller's instance named by `instance_id`, for operations declared with `instance: true`. */
  instance: I extends true ? InstanceRecord : undefined
  request: FastifyRequest
  reply: FastifyReply
}

/** The `instance_id` parameter of every operation that acts on one instance. */
export const INSTANCE_ID_FIELD = {
  type: 'string',
  required: true,
  maxLength: 64,
  description: 'The instance id from create_instance.',
  example: '609ACF283XXXX6F2E1B0A4C5',
} as const satisfies FieldSpec

/**
 * One API operation: a flat name under the API root answering GET and POST alike, its parameters (read
 * from query and body), who may call it, and what it returns. The OpenAPI document is made from these.
 */
export interface Operation<F extends Fields = Fields, I extends boolean = boolean> {
  name: string
  aliases?: readonly string[]
  tag: string
  summary: string
  description?: string
  fields: F
  /** token: scripts and the window; operator: the window only; none: anyone on this machine. */
  auth: AuthRequirement
  /**
   * Acts on one instance: an `instance_id` parameter is declared for it, and the instance is resolved for
   * the caller (instance_not_found otherwise) before `handle` runs, which receives it as `instance`.
   */
  instance?: I
  /** Makes a new instance: in a cluster it runs on the node the instance is placed on. */
  places?: boolean
  /** An example success body, shown in the docs. */
  example?: Record<string, unknown>
  /**
   * The success body's fields beside `status` (`message` included), as the contract's schemas declare them;
   * `Type.Optional` for one that is not always there. The API's document states the answer from it.
   */
  answer?: Record<string, TSchema>
  /** Example request bodies, by name, shown in the docs (send_message: one per message kind). */
  requestExamples?: Record<string, { summary: string; value: Record<string, unknown> }>
  handle(context: OperationContext<ParamsOf<F>, I>): Promise<unknown> | unknown
}

/**
 * Answers the call on another node when it belongs there (the instance's owner; for a new
 * instance, the node it is placed on) and resolves true; false lets this node run it. It runs after the
 * caller is authenticated and the parameters are read, and checks that the caller may touch the instance.
 */
export type OperationRoute = (call: {
  instanceId: string | undefined
  principal: Principal
  request: FastifyRequest
  reply: FastifyReply
}) => Promise<boolean>

/** Declares an operation, keeping its parameter types; one that acts on an instance gets `instance_id`. */
export function defineOperation<F extends Fields, const I extends boolean = false>(
  operation: Operation<F, I>,
): Operation<F, I> {
  if (!operation.instance) return operation
  return { ...operation, fields: { instance_id: INSTANCE_ID_FIELD, ...operation.fields } }
}

/**
 * Registers each operation (and its aliases) for GET and POST under `prefix`, behind the authentication hook
 * (its `auth` is the route's), reading its parameters and resolving its instance before `handle`.
 */
export function registerOperations(
  app: FastifyInstance,
  prefix: string,
  operations: readonly Operation[],
  access: InstanceAccess,
  knownPaths: Set<string>,
  route: OperationRoute,
): void {
  for (const operation of operations) {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const { principal } = request
      const params = readParams(operation.fields, mergeRawParams(request.query, request.body))
      const instanceId = operation.instance ? String(params.instance_id) : undefined
      if (operation.places || instanceId !== undefined) {
        if (await route({ instanceId, principal, request, reply })) return reply
      }
      const instance = instanceId !== undefined ? access(instanceId, principal) : undefined
      const result = await operation.handle({ params, principal, instance, request, reply })
      if (reply.sent) return reply
      return result
    }
    for (const name of [operation.name, ...(operation.aliases ?? [])]) {
      const url = `${prefix}/${name}`
      knownPaths.add(url)
      app.route({
        method: ['GET', 'POST'],
        url,
        config: { auth: operation.auth, operation: operation.name },
        handler,
      })
    }
  }
}
