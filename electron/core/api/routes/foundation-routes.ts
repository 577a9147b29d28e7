import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Nullable, OneOf } from '../../schema'
import type { InstanceManager } from '../../instances/instance-manager'
import type { InstanceRegistry } from '../../instances/instance-registry'
import type { TokenInfo, TokenService } from '../../tokens/token-service'
import type { WaVersionInfo } from '../../contract/network'
import { holdsScope, REACHES, type Reach, SCOPES, type Scope } from '../../contract/principal'
import { AppError } from '../../errors'
import { type InstanceRecord, tokensOf } from '../../store/settings-store'
import { presentedSession, SESSION_COOKIE, type UiCredential } from '../auth'
import { defineOperation, type Operation } from '../operation'

/** An access token as the admin operations show it (token-service's TokenInfo), never its value. */
const TokenInfoSchema = Type.Object({
  id: Type.String({ description: 'The token id.' }),
  label: Type.String(),
  createdAt: Type.Number({ description: 'Unix milliseconds.' }),
  source: OneOf(['env', 'ui'], { description: 'env: LINKDESK_ACCESS_TOKEN; ui: made here.' }),
  reach: OneOf(REACHES),
  scopes: Type.Array(OneOf(SCOPES)),
})

/** A token with the instances chosen for it. */
const TokenViewSchema = Type.Composite([
  TokenInfoSchema,
  Type.Object({ instance_ids: Type.Array(Type.String(), { description: 'Its chosen instances.' }) }),
])

/** Who may use an instance. */
const InstanceAccessSchema = Type.Object({
  instance_id: Type.String(),
  token_ids: Type.Array(Type.String(), { description: 'The tokens chosen for it.' }),
  tokens: Type.Array(
    Type.Composite([
      TokenInfoSchema,
      Type.Object({ by: OneOf(['all', 'chosen'], { description: 'By reaching all, or by being chosen.' }) }),
    ]),
  ),
})

/** A window session's answer: when it ends. */
const SESSION_ANSWER = {
  message: Type.String(),
  expires_at: Type.Integer({ description: 'Unix seconds when the session ends.' }),
}

/** How long a window session lasts from its login. */
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000

export interface FoundationDeps {
  instances: InstanceManager
  registry: InstanceRegistry
  tokens: TokenService
  ui: UiCredential
  version: string
  /** The WhatsApp Web client version sockets announce, and where it came from. */
  waVersion(): WaVersionInfo
  /** The coordinator's view for health: in a cluster this node, its leases and the cluster's nodes. */
  coordination(): Promise<Record<string, unknown> | undefined>
}

const labelField = {
  type: 'string',
  required: true,
  maxLength: 80,
  description: 'A name for the token.',
} as const

const tokenIdField = { type: 'string', required: true, maxLength: 64, description: 'The token id.' } as const

const reachField = {
  type: 'string',
  enum: REACHES,
  description:
    'all: every instance, present and future; chosen: the instances chosen for it and those it creates.',
} as const

const scopesField = {
  type: 'list',
  maxItems: SCOPES.length,
  maxLength: 10,
  description: `What it may do: any of ${SCOPES.join(', ')} (a new token without them: all).`,
} as const

const instanceIdsField = {
  type: 'list',
  maxItems: 1000,
  maxLength: 64,
  description: 'The instances a chosen reach reaches.',
} as const

const ACCESS_NOTE =
  'read: lists and reads; send: messages and what a conversation does; manage: instances, their link, ' +
  'groups and webhooks; admin: tokens and who may use an instance. A token without a scope is answered 403 ' +
  'insufficient_scope; an instance outside its reach is 404 instance_not_found.'

const SESSION_NOTE =
  'The answer sets the linkdesk_session cookie (HttpOnly, SameSite=Strict): every tab of this browser is ' +
  'logged in until admin/logout or the session ends (expires_at), across server restarts.'

function parseScopes(values: readonly string[] | undefined): Scope[] | undefined {
  if (values === undefined) return undefined
  const unknown = values.filter((value) => !(SCOPES as readonly string[]).includes(value))
  if (unknown.length > 0) {
    throw new AppError(
      'invalid_parameter',
      `scopes: ${unknown.join(', ')} is not one of ${SCOPES.join(', ')}.`,
      {
        details: { parameter: 'scopes' },
      },
    )
  }
  return values as Scope[]
}

/** The given token ids, refused whole (invalid_parameter) if one is not a token. */
function knownTokens(deps: FoundationDeps, ids: readonly string[] | undefined): string[] {
  const unknown = (ids ?? []).filter((id) => !deps.tokens.info(id))
  if (unknown.length > 0) {
    throw new AppError('invalid_parameter', `token_ids: ${unknown.join(', ')} is not an access token.`, {
      details: { parameter: 'token_ids' },
    })
  }
  return [...(ids ?? [])]
}

/** The given instance ids, refused whole (instance_not_found) if one is not an instance. */
function knownInstances(deps: FoundationDeps, ids: readonly string[] | undefined): string[] {
  const unknown = (ids ?? []).filter((id) => !deps.registry.find(id))
  if (unknown.length > 0) {
    throw new AppError('instance_not_found', `No instance ${unknown.join(', ')}.`, {
      details: { instance_ids: unknown },
    })
  }
  return [...new Set(ids ?? [])]
}

function withInstances(deps: FoundationDeps, info: TokenInfo): TokenInfo & { instance_ids: string[] } {
  return { ...info, instance_ids: deps.registry.chosenFor(info.id) }
}

/** Who may use an instance: each token reaching it, and whether by reaching all or by being chosen. */
function instanceAccess(deps: FoundationDeps, record: InstanceRecord) {
  const chosen = tokensOf(record)
  return {
    instance_id: record.id,
    token_ids: chosen.filter((id) => deps.tokens.info(id)),
    tokens: deps.tokens
      .list()
      .filter((info) => info.reach === 'all' || chosen.includes(info.id))
      .map((info) => ({ ...info, by: info.reach === 'all' ? 'all' : 'chosen' })),
  }
}

function sessionCookie(secret: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`
}

async function openSession(deps: FoundationDeps, reply: FastifyReply) {
  const { secret, session } = await deps.tokens.openSession(SESSION_LIFETIME_MS)
  void reply.header('set-cookie', sessionCookie(secret, Math.floor(SESSION_LIFETIME_MS / 1000)))
  return { status: 'success', message: 'Logged in', expires_at: Math.floor(session.expiresAt / 1000) }
}

/** Health, instance creation and the window's admin operations (session and tokens). */
export function foundationOperations(deps: FoundationDeps): Operation[] {
  return [
    defineOperation({
      name: 'health',
      tag: 'Service',
      summary: 'Whether the server is ready (no token needed).',
      auth: 'none',
      fields: {},
      answer: {
        message: Type.Literal('ready'),
        version: Type.String({ description: 'Linkdesk’s version.' }),
        wa_version: Type.Object({
          version: Type.String({ description: 'The WhatsApp Web client version sockets announce.' }),
          source: OneOf(['bundled', 'fetched'] as const),
          checked_at: Nullable(
            Type.Integer({ description: 'Unix seconds of the last fetch; null before it.' }),
          ),
        }),
        cluster: Type.Optional(
          Type.Object(
            {},
            { additionalProperties: true, description: 'In a cluster: this node, its leases, the nodes.' },
          ),
        ),
      },
      example: {
        status: 'success',
        message: 'ready',
        version: '0.1.0',
        wa_version: { version: '2.3000.1043857760', source: 'fetched', checked_at: 1795253914 },
      },
      handle: async () => {
        const cluster = await deps.coordination()
        return {
          status: 'success',
          message: 'ready',
          version: deps.version,
          wa_version: deps.waVersion(),
          ...(cluster && { cluster }),
        }
      },
    }),
    defineOperation({
      name: 'create_instance',
      places: true,
      tag: 'Instances',
      summary: 'Create an instance: one account connection, linked later by QR or pairing code.',
      auth: 'token',
      fields: {
        name: {
          type: 'string',
          maxLength: 200,
          description: 'A name to recognise it by ("Sales"), shown in lists; names need not be unique.',
          example: 'Sales',
        },
        token_ids: {
          type: 'list',
          maxItems: 100,
          maxLength: 64,
          description:
            'Tokens with a chosen reach that may use it too (needs the admin scope); tokens reaching all ' +
            'instances, and the token creating it, always may.',
        },
      },
      answer: { message: Type.String(), instance_id: Type.String({ description: 'The new instance’s id.' }) },
      example: { status: 'success', message: 'Instance created', instance_id: '609ACF283XXXX6F2E1B0A4C5' },
      handle: async ({ principal, params }) => {
        if (params.token_ids && !holdsScope(principal, 'admin')) {
          throw new AppError('insufficient_scope', 'Choosing token_ids needs the admin scope.', {
            details: { required_scope: 'admin' },
          })
        }
        const tokens = knownTokens(deps, params.token_ids)
        const record = await deps.instances.create(principal, params.name, tokens)
        return { status: 'success', message: 'Instance created', instance_id: record.id }
      },
    }),
    defineOperation({
      name: 'admin/session',
      tag: 'Admin',
      summary:
        "Log a browser in with the headless server's one-time login code: opens a window session (cookie).",
      description: SESSION_NOTE,
      auth: 'none',
      fields: {
        code: { type: 'string', required: true, maxLength: 100, description: 'The code from the login URL.' },
      },
      answer: {
        ...SESSION_ANSWER,
        ui_token: Type.String({
          description: 'This run’s window credential, for programs that log in this way.',
        }),
      },
      handle: async ({ params, reply }) => {
        // ui_token (this run's window credential, as before sessions) stays for programs that log in this way.
        const uiToken = deps.ui.exchange(params.code)
        return { ...(await openSession(deps, reply)), ui_token: uiToken }
      },
    }),
    defineOperation({
      name: 'admin/login',
      tag: 'Admin',
      summary: 'Log a browser in with an access token that reaches all instances and holds the admin scope.',
      description: SESSION_NOTE,
      auth: 'none',
      fields: {
        token: {
          type: 'string',
          required: true,
          maxLength: 200,
          description: 'An access token (reach all, admin scope), such as LINKDESK_ACCESS_TOKEN.',
        },
      },
      answer: SESSION_ANSWER,
      handle: async ({ params, reply }) => {
        const info = deps.tokens.find(params.token)
        if (!info) throw new AppError('unauthorized', 'That access token is not known.')
        if (info.reach !== 'all' || !info.scopes.includes('admin')) {
          throw new AppError(
            'insufficient_scope',
            'Only a token that reaches all instances and holds the admin scope may open the window.',
            { details: { required_scope: 'admin' } },
          )
        }
        return openSession(deps, reply)
      },
    }),
    defineOperation({
      name: 'admin/logout',
      tag: 'Admin',
      summary: "End this browser's window session: its cookie is refused from now on, in every tab.",
      auth: 'none',
      fields: {},
      answer: { message: Type.String() },
      handle: async ({ request, reply }) => {
        const secret = presentedSession(request.headers)
        if (secret !== undefined) await deps.tokens.closeSession(secret)
        void reply.header('set-cookie', sessionCookie('', 0))
        return { status: 'success', message: 'Logged out' }
      },
    }),
    defineOperation({
      name: 'admin/tokens',
      tag: 'Admin',
      summary: 'List access tokens (never their values), each with its reach, scopes and chosen instances.',
      auth: 'token',
      fields: {},
      answer: { message: Type.String(), tokens: Type.Array(TokenViewSchema) },
      handle: () => ({
        status: 'success',
        message: 'Tokens',
        tokens: deps.tokens.list().map((info) => withInstances(deps, info)),
      }),
    }),
    defineOperation({
      name: 'admin/tokens/create',
      tag: 'Admin',
      summary: 'Create an access token; its value is shown in this answer only.',
      description: ACCESS_NOTE,
      auth: 'token',
      fields: { label: labelField, reach: reachField, scopes: scopesField, instance_ids: instanceIdsField },
      answer: {
        message: Type.String(),
        token: Type.String({ description: 'The token’s value: shown in this answer only.' }),
        info: TokenViewSchema,
      },
      handle: async ({ params }) => {
        const scopes = parseScopes(params.scopes)
        const instanceIds = knownInstances(deps, params.instance_ids)
        const { token, info } = await deps.tokens.create(params.label, {
          reach: params.reach as Reach | undefined,
          scopes,
        })
        if (instanceIds.length > 0) await deps.registry.setChosenFor(info.id, instanceIds)
        return {
          status: 'success',
          message: 'Token created: copy it now, it is not shown again',
          token,
          info: withInstances(deps, info),
        }
      },
    }),
    defineOperation({
      name: 'admin/tokens/label',
      tag: 'Admin',
      summary: 'Rename an access token.',
      auth: 'token',
      fields: { token_id: tokenIdField, label: labelField },
      answer: { message: Type.String(), info: TokenViewSchema },
      handle: async ({ params }) => ({
        status: 'success',
        message: 'Token renamed',
        info: withInstances(deps, await deps.tokens.relabel(params.token_id, params.label)),
      }),
    }),
    defineOperation({
      name: 'admin/tokens/access',
      tag: 'Admin',
      summary: "Set an access token's reach, scopes and chosen instances.",
      description: `${ACCESS_NOTE} instance_ids replaces the chosen instances: leaving it out chooses none.`,
      auth: 'token',
      fields: {
        token_id: tokenIdField,
        reach: { ...reachField, required: true },
        scopes: { ...scopesField, required: true },
        instance_ids: instanceIdsField,
      },
      answer: { message: Type.String(), info: TokenViewSchema },
      handle: async ({ params }) => {
        if (!deps.tokens.info(params.token_id)) throw new AppError('token_not_found')
        // Everything is checked before anything changes: bad input changes nothing.
        const scopes = parseScopes(params.scopes)
        const instanceIds = knownInstances(deps, params.instance_ids)
        await deps.registry.setChosenFor(params.token_id, instanceIds)
        const info = await deps.tokens.setAccess(params.token_id, { reach: params.reach as Reach, scopes })
        return { status: 'success', message: 'Token access set', info: withInstances(deps, info) }
      },
    }),
    defineOperation({
      name: 'admin/tokens/revoke',
      tag: 'Admin',
      summary: 'Revoke an access token: requests with it are refused from now on.',
      auth: 'token',
      fields: { token_id: tokenIdField },
      answer: { message: Type.String() },
      handle: async ({ params }) => {
        await deps.tokens.revoke(params.token_id)
        return { status: 'success', message: 'Token revoked' }
      },
    }),
    defineOperation({
      name: 'admin/instance_access',
      tag: 'Admin',
      summary: 'Which tokens may use an instance: those reaching all instances, and those chosen for it.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: Type.String(), access: InstanceAccessSchema },
      handle: ({ instance }) => ({
        status: 'success',
        message: 'Instance access',
        access: instanceAccess(deps, instance),
      }),
    }),
    defineOperation({
      name: 'admin/set_instance_access',
      tag: 'Admin',
      summary: 'Choose the tokens (of those with a chosen reach) that may use an instance.',
      description:
        'token_ids replaces the chosen tokens: leaving it out chooses none, so only the tokens reaching all ' +
        'instances may use it. A token that reaches all instances needs no choosing.',
      auth: 'token',
      instance: true,
      fields: {
        token_ids: {
          type: 'list',
          maxItems: 100,
          maxLength: 64,
          description: 'The token ids that may use the instance.',
        },
      },
      answer: { message: Type.String(), access: InstanceAccessSchema },
      handle: async ({ params, instance }) => {
        const updated = await deps.registry.setTokens(instance.id, knownTokens(deps, params.token_ids))
        return { status: 'success', message: 'Instance access set', access: instanceAccess(deps, updated) }
      },
    }),
  ]
}
