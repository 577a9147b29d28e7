import { Type } from '@sinclair/typebox'
import { Nullable, OneOf, type Static } from '../schema'
import { maskProxy } from '../contract/proxy'
import { behavioursOf } from './instance-settings'
import type { InstanceRecord } from '../store/settings-store'
import { INSTANCE_STATES, type InstanceStatus } from '../contract/instance-state'

const UnixSeconds = (description: string) =>
  Nullable(Type.Integer({ description: `${description} Unix seconds.` }))

/** The linked account of an instance. */
export const InstanceAccountSchema = Type.Object(
  {
    id: Type.String({ description: '`<phone>:<device>@s.whatsapp.net`' }),
    number: Type.String({ description: 'Digits with country code.' }),
    name: Nullable(Type.String()),
    avatar: Type.String({
      description: 'A `data:` URI or an address of this server; empty when there is no picture.',
    }),
  },
  { $id: 'InstanceAccount' },
)

/** The last connection problem of an instance that needs attention (never the routine 515 restart). */
export const InstanceErrorSchema = Type.Object(
  {
    code: Nullable(Type.Integer()),
    cause: Type.String(),
    message: Type.String(),
    at: UnixSeconds('When it happened.'),
  },
  { $id: 'InstanceError' },
)

/** One instance as the `instances` and `instance` operations answer it. */
export const InstanceViewSchema = Type.Object(
  {
    instance_id: Type.String(),
    created_at: UnixSeconds('When it was created.'),
    state: OneOf(INSTANCE_STATES),
    cause: Type.String({
      description: 'Why it is in that state, e.g. waiting_for_scan, qr_expired, retrying.',
    }),
    since: UnixSeconds('Since when it is in that state.'),
    linked: Type.Boolean(),
    account: Nullable(InstanceAccountSchema),
    last_error: Nullable(InstanceErrorSchema),
    next_retry_at: UnixSeconds('When the next automatic reconnect happens (disconnected and retrying).'),
    qr_expires_at: UnixSeconds('When the QR code shown now expires (state qr).'),
    name: Nullable(
      Type.String({ description: 'The operator’s name for it (create_instance, update_instance).' }),
    ),
    behaviours: Type.Object(
      {
        ignore_groups: Type.Boolean({ description: 'Group messages and events are not surfaced.' }),
        auto_read: Type.Boolean({ description: 'Incoming messages are marked read once kept.' }),
        always_online: Type.Boolean({ description: 'The account shows online whenever it connects.' }),
        ignore_status: Type.Boolean({
          description: 'Contacts’ status updates are not received (on by default).',
        }),
      },
      { description: 'What it does on its own (update_instance); all off by default but ignore_status.' },
    ),
    webhooks: Type.Array(
      Type.Object({
        webhook_id: Type.String(),
        url: Type.String(),
        enable: Type.Boolean(),
        events: Type.Array(Type.String(), { description: 'Its event filter; empty: every event.' }),
      }),
      {
        description: 'The webhooks added beside its own (add_webhook), without their secrets (see webhooks).',
      },
    ),
    proxy: Nullable(
      Type.String({
        description:
          'The proxy its connection and media go through (update_instance), password masked; null: direct.',
      }),
    ),
    calls: Type.Object(
      {
        reject: Type.Boolean({ description: 'Every incoming call is rejected at once.' }),
        message: Nullable(Type.String({ description: 'Sent to the caller after an automatic rejection.' })),
      },
      { description: 'How the instance answers calls (set_call_rejection).' },
    ),
  },
  { $id: 'Instance' },
)

export type InstanceAccountView = Static<typeof InstanceAccountSchema>
export type InstanceView = Static<typeof InstanceViewSchema>

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000))

/** The public view of one instance: its record and its live state. */
export function instanceView(
  record: InstanceRecord,
  status: InstanceStatus,
  webhooks: InstanceView['webhooks'] = [],
): InstanceView {
  const { account, lastError } = status
  return {
    instance_id: record.id,
    created_at: seconds(record.createdAt),
    state: status.state,
    cause: status.cause,
    since: seconds(status.since),
    linked: status.linked,
    account: account && {
      id: account.id,
      number: account.number,
      name: account.name,
      avatar: account.avatar,
    },
    last_error: lastError && {
      code: lastError.code,
      cause: lastError.cause,
      message: lastError.message,
      at: seconds(lastError.at),
    },
    next_retry_at: seconds(status.nextRetryAt),
    qr_expires_at: status.qr ? seconds(status.qr.expiresAt) : null,
    name: record.name ?? null,
    behaviours: behavioursOf(record),
    webhooks,
    proxy: maskProxy(record.proxy),
    calls: record.calls ?? { reject: false, message: null },
  }
}
