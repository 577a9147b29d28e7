import { Type } from '@sinclair/typebox'
import type { InstanceManager } from '../../instances/instance-manager'
import type { WebhookRegistry } from '../../events/webhook-registry'
import type { InstanceRecord } from '../../store/settings-store'
import type { InstanceRegistry } from '../../instances/instance-registry'
import { instanceView, InstanceViewSchema } from '../../instances/instance-view'
import { defineOperation, type Operation } from '../operation'

export interface InstanceRoutesDeps {
  registry: InstanceRegistry
  instances: InstanceManager
  webhooks: Pick<WebhookRegistry, 'summaries'>
}

/** What reconnect answers in `data`: the linked account (the seed's connection data). */
const ConnectionDataSchema = Type.Object({
  id: Type.String({ description: 'The account: <phone_number>:<device>@<domain>.' }),
  name: Type.String({ description: 'Its display name.' }),
  avatar: Type.String({ description: 'The URL of its picture; empty when it has none.' }),
})

/** A phone number with country code, as a linking operation takes it. */
export const phoneField = {
  type: 'string',
  required: true,
  maxLength: 32,
  description:
    'The phone number of the account to link: digits with country code (spaces, dashes and + allowed).',
  example: '15551234567',
  check: (value: string) =>
    /^\d{7,15}$/.test(value.replace(/[\s\-+()]/g, ''))
      ? undefined
      : 'must be 7 to 15 digits with country code.',
} as const

/** The v1 instance operations (seed + design §4-§5): QR, pairing code, reconnect, reinitialize, destroy, delete, state. */
export function instanceOperations({ registry, instances, webhooks }: InstanceRoutesDeps): Operation[] {
  const view = (record: InstanceRecord) =>
    instanceView(record, instances.status(record.id), webhooks.summaries(record.id))
  return [
    defineOperation({
      name: 'generate_qrcode',
      aliases: ['get_qrcode'],
      tag: 'Instances',
      summary: 'Start a QR wait (idle or logged-out instance) and answer its QR code as a PNG data URI.',
      description:
        'Answers once the first QR code exists. While a QR wait runs it answers the current code; the code rotates, ' +
        'and qr.update events carry each new one. 409 already_linked when the instance is linked.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: {
        message: Type.String(),
        base64: Type.String({ description: 'A data URI of a PNG image (data:image/png;base64,…).' }),
      },
      example: {
        status: 'success',
        message: 'Scan this QR code with WhatsApp',
        base64: 'data:image/png;base64,iVBORw0KGgo...',
      },
      handle: async ({ instance }) => {
        const qr = await instances.generateQr(instance.id)
        return { status: 'success', message: 'Scan this QR code with WhatsApp', base64: qr.dataUri }
      },
    }),
    defineOperation({
      name: 'pairing_code',
      tag: 'Instances',
      summary: 'Link by phone number: answers an 8-character code to type on the phone (Linked devices).',
      auth: 'token',
      instance: true,
      fields: { phone: phoneField },
      answer: { message: Type.String(), code: Type.String({ description: 'Eight characters: ABCD-EFGH.' }) },
      example: { status: 'success', message: 'Enter this code on the phone', code: 'ABCD-EFGH' },
      handle: async ({ params, instance }) => {
        const code = await instances.pairingCode(instance.id, params.phone.replace(/\D/g, ''))
        return { status: 'success', message: 'Enter this code on the phone', code }
      },
    }),
    defineOperation({
      name: 'reconnect',
      tag: 'Instances',
      summary: 'Reconnect a linked instance now and answer its connection data once connected.',
      description: '409 not_linked when the instance has no link (scan a QR code first).',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: Type.String(), data: ConnectionDataSchema },
      example: {
        status: 'success',
        message: 'Connected',
        data: { id: '15551234567:12@s.whatsapp.net', name: 'Alice', avatar: '' },
      },
      handle: async ({ instance }) => {
        const data = await instances.reconnect(instance.id)
        return { status: 'success', message: 'Connected', data }
      },
    }),
    defineOperation({
      name: 'update_instance',
      tag: 'Instances',
      summary: 'Rename an instance, route it through a proxy, or change what it does on its own.',
      description:
        'Changes any of: `name`; `ignore_groups` (group messages, reactions, votes, statuses and calls are not surfaced as events); `auto_read` (every incoming message is marked read once kept); `always_online` (the account shows online whenever the instance connects: the phone then gets no notifications); `ignore_status` (contacts’ status updates are not received; on by default); `proxy` (its connection and media go through it). Only the parameters given change; kept across restarts, shown in the instance answers, announced by instance.updated. Answers the instance.',
      auth: 'token',
      instance: true,
      fields: {
        name: { type: 'string', maxLength: 200, description: 'The new name.', example: 'Support' },
        ignore_groups: { type: 'boolean', description: 'Surface nothing from groups.', example: true },
        auto_read: { type: 'boolean', description: 'Mark incoming messages read.', example: false },
        always_online: { type: 'boolean', description: 'Show online while connected.', example: false },
        ignore_status: {
          type: 'boolean',
          description:
            'Receive no status updates (on by default); off: they arrive as message.received in chat status@broadcast.',
          example: false,
        },
        proxy: {
          type: 'string',
          maxLength: 2048,
          description:
            'The proxy for this account’s connection and media: `http://`, `https://`, `socks4://` or `socks5://`, with `user:password@` if it needs them; `none`: direct. Checked reachable before it is kept (422 proxy_unreachable); a connected instance reconnects through it at once.',
          example: 'socks5://user:secret@203.0.113.7:1080',
        },
      },
      answer: { instance: InstanceViewSchema },
      example: { status: 'success', instance: { instance_id: '609ACF283XXXX6F2E1B0A4C5', name: 'Support' } },
      handle: async ({ params, instance }) => {
        const { name, ignore_groups, auto_read, always_online, ignore_status, proxy } = params
        const record = await instances.updateSettings(instance.id, {
          name,
          proxy,
          behaviours: { ignore_groups, auto_read, always_online, ignore_status },
        })
        return { status: 'success', instance: view(record) }
      },
    }),
    defineOperation({
      name: 'reinitialize',
      aliases: ['reboot'],
      tag: 'Instances',
      summary: 'Log out, wipe the credentials and start a new QR wait.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: Type.String() },
      example: {
        status: 'success',
        message: 'Instance reinitialized: get the new QR code with generate_qrcode',
      },
      handle: async ({ instance }) => {
        await instances.reinitialize(instance.id)
        return {
          status: 'success',
          message: 'Instance reinitialized: get the new QR code with generate_qrcode',
        }
      },
    }),
    defineOperation({
      name: 'destroy',
      aliases: ['reset_instance'],
      tag: 'Instances',
      summary: 'Log out, delete everything of the instance and replace its id; answers the new instance_id.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: Type.String(), instance_id: Type.String({ description: 'The instance’s new id.' }) },
      example: { status: 'success', message: 'Instance destroyed', instance_id: '7A1C0E9F2B3D4C5E6F708192' },
      handle: async ({ instance }) => {
        const instanceId = await instances.destroy(instance.id)
        return { status: 'success', message: 'Instance destroyed', instance_id: instanceId }
      },
    }),
    defineOperation({
      name: 'delete_instance',
      tag: 'Instances',
      summary: 'Log out and delete the instance for good: unlike destroy, nothing replaces it.',
      description:
        'Its credentials, messages, added webhooks and record go; instance.destroyed (reason `deleted`) is sent to its webhook first. Its id then answers 404 instance_not_found everywhere; its logged events stay until the retention sweep.',
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: Type.String(), instance_id: Type.String({ description: 'The instance deleted.' }) },
      example: { status: 'success', message: 'Instance deleted', instance_id: '609ACF283XXXX6F2E1B0A4C5' },
      handle: async ({ instance }) => {
        await instances.delete(instance.id)
        return { status: 'success', message: 'Instance deleted', instance_id: instance.id }
      },
    }),
    defineOperation({
      name: 'instances',
      tag: 'Instances',
      summary: 'List your instances with their state, its cause and the linked account.',
      auth: 'token',
      fields: {},
      answer: { message: Type.String(), instances: Type.Array(InstanceViewSchema) },
      handle: ({ principal }) => ({
        status: 'success',
        message: 'Instances',
        instances: registry.list(principal).map((record) => view(record)),
      }),
    }),
    defineOperation({
      name: 'instance',
      tag: 'Instances',
      summary: "One instance's state, cause, account and last connection error.",
      auth: 'token',
      instance: true,
      fields: {},
      answer: { message: Type.String(), instance: InstanceViewSchema },
      handle: ({ instance }) => ({
        status: 'success',
        message: 'Instance',
        instance: view(instance),
      }),
    }),
  ]
}
