import type { Scope } from '../contract/principal'

/**
 * The scope each API operation needs, by operation name (aliases are looked up by their operation's name) or,
 * for the routes that are not flat operations, by their path under the API root. The authentication step reads
 * it for every token-protected route; a route missing here needs `admin`, so a new one is never open by mistake.
 */
export const OPERATION_SCOPES: Readonly<Record<string, Scope>> = {
  // read: what the instances, chats and event log hold
  settings: 'read',
  instances: 'read',
  instance: 'read',
  chats: 'read',
  chat_messages: 'read',
  contacts: 'read',
  check_numbers: 'read',
  profile: 'read',
  blocked: 'read',
  groups: 'read',
  group: 'read',
  group_invite_info: 'read',
  privacy: 'read',
  get_webhook: 'read',
  webhooks: 'read',
  sinks: 'read',
  events: 'read',
  deliveries: 'read',
  stream: 'read',
  metrics: 'read',
  'media/:instanceId/:messageId': 'read',
  'profile_picture/:instanceId/:chat': 'read',
  // send: what a conversation does
  send_message: 'send',
  send_poll: 'send',
  react: 'send',
  edit_message: 'send',
  delete_message: 'send',
  forward_message: 'send',
  mark_read: 'send',
  send_presence: 'send',
  subscribe_presence: 'send',
  reject_call: 'send',
  uploads: 'send',
  // manage: instances, their link, settings, groups and webhooks
  create_instance: 'manage',
  generate_qrcode: 'manage',
  pairing_code: 'manage',
  reconnect: 'manage',
  update_instance: 'manage',
  reinitialize: 'manage',
  destroy: 'manage',
  delete_instance: 'manage',
  set_webhook: 'manage',
  rotate_webhook_secret: 'manage',
  send_test_event: 'manage',
  add_webhook: 'manage',
  update_webhook: 'manage',
  remove_webhook: 'manage',
  add_sink: 'manage',
  remove_sink: 'manage',
  redeliver: 'manage',
  redeliver_failed: 'manage',
  block: 'manage',
  unblock: 'manage',
  set_call_rejection: 'manage',
  create_group: 'manage',
  group_participants: 'manage',
  update_group: 'manage',
  group_invite: 'manage',
  join_group: 'manage',
  leave_group: 'manage',
  set_profile: 'manage',
  archive_chat: 'manage',
  unarchive_chat: 'manage',
  pin_chat: 'manage',
  unpin_chat: 'manage',
  mute_chat: 'manage',
  unmute_chat: 'manage',
  mark_chat_unread: 'manage',
  mark_chat_read: 'manage',
  star_message: 'manage',
  unstar_message: 'manage',
  set_disappearing_timer: 'manage',
  set_privacy: 'manage',
  // admin: tokens, who may use an instance, the simulated network
  'admin/tokens': 'admin',
  'admin/tokens/create': 'admin',
  'admin/tokens/label': 'admin',
  'admin/tokens/access': 'admin',
  'admin/tokens/revoke': 'admin',
  'admin/instance_access': 'admin',
  'admin/set_instance_access': 'admin',
  sandbox: 'admin',
  // a simulated phone scanning: it drives the simulated network, as the sandbox control API does
  sandbox_scan: 'admin',
}

/** The scope a route needs: by its operation's name, else by its path under the API root (sandbox/* as one). */
export function scopeOf(operation: string | undefined, path: string, prefix: string): Scope {
  if (operation !== undefined) return OPERATION_SCOPES[operation] ?? 'admin'
  const relative = path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path
  const key = relative.startsWith('sandbox/') ? 'sandbox' : relative.replace(/\/$/, '')
  return OPERATION_SCOPES[key] ?? 'admin'
}
