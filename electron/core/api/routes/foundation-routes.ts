import { Type } from '@sinclair/typebox'
import { Nullable, OneOf } from '../../schema'
import type { InstanceManager } from '../../instances/instance-manager'
import type { TokenService } from '../../tokens/token-service'
import type { WaVersionInfo } from '../../contract/network'
import type { UiCredential } from '../auth'
import { defineOperation, type Operation } from '../operation'

export interface FoundationDeps {
  instances: InstanceManager
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
      },
      answer: { message: Type.String(), instance_id: Type.String({ description: 'The new instance’s id.' }) },
      example: { status: 'success', message: 'Instance created', instance_id: '609ACF283XXXX6F2E1B0A4C5' },
      handle: async ({ principal, params }) => {
        const record = await deps.instances.create(principal, params.name)
        return { status: 'success', message: 'Instance created', instance_id: record.id }
      },
    }),
    defineOperation({
      name: 'admin/session',
      tag: 'Admin',
      summary: "Exchange the headless server's one-time login code for the window's credential.",
      auth: 'none',
      fields: {
        code: { type: 'string', required: true, maxLength: 100, description: 'The code from the login URL.' },
      },
      handle: ({ params }) => ({
        status: 'success',
        message: 'Logged in',
        ui_token: deps.ui.exchange(params.code),
      }),
    }),
    defineOperation({
      name: 'admin/tokens',
      tag: 'Admin',
      summary: 'List access tokens (never their values).',
      auth: 'operator',
      fields: {},
      handle: () => ({ status: 'success', message: 'Tokens', tokens: deps.tokens.list() }),
    }),
    defineOperation({
      name: 'admin/tokens/create',
      tag: 'Admin',
      summary: 'Create an access token; its value is shown in this answer only.',
      auth: 'operator',
      fields: { label: labelField },
      handle: async ({ params }) => {
        const { token, info } = await deps.tokens.create(params.label)
        return {
          status: 'success',
          message: 'Token created: copy it now, it is not shown again',
          token,
          info,
        }
      },
    }),
    defineOperation({
      name: 'admin/tokens/label',
      tag: 'Admin',
      summary: 'Rename an access token.',
      auth: 'operator',
      fields: {
        token_id: { type: 'string', required: true, maxLength: 64, description: 'The token id.' },
        label: labelField,
      },
      handle: async ({ params }) => ({
        status: 'success',
        message: 'Token renamed',
        info: await deps.tokens.relabel(params.token_id, params.label),
      }),
    }),
    defineOperation({
      name: 'admin/tokens/revoke',
      tag: 'Admin',
      summary: 'Revoke an access token: requests with it are refused from now on.',
      auth: 'operator',
      fields: { token_id: { type: 'string', required: true, maxLength: 64, description: 'The token id.' } },
      handle: async ({ params }) => {
        await deps.tokens.revoke(params.token_id)
        return { status: 'success', message: 'Token revoked' }
      },
    }),
  ]
}
