import type { CloseVerdict } from '../contract/instance-state'
import { PROXY_UNREACHABLE } from './proxy'

interface BoomLike {
  message?: unknown
  output?: { statusCode?: unknown; payload?: { message?: unknown } }
  data?: unknown
}

/** Baileys puts the stream error's first child (`<conflict type="device_removed"/>`) in the Boom's data. */
function hasDeviceRemovedConflict(data: unknown): boolean {
  type Node = { tag?: unknown; attrs?: { type?: unknown }; content?: unknown }
  const node = data as Node | undefined
  const nodes = [node, ...(Array.isArray(node?.content) ? (node.content as Node[]) : [])]
  return nodes.some((child) => child?.tag === 'conflict' && child.attrs?.type === 'device_removed')
}

/** Reads the error a socket closed with (a Boom from Baileys, an Error, or nothing) as a CloseVerdict. */
export function classifyClose(error: unknown): CloseVerdict {
  const boom = (error ?? {}) as BoomLike
  const rawCode = boom.output?.statusCode
  const code = typeof rawCode === 'number' ? rawCode : undefined
  // The instance's proxy could not be reached (or refused the tunnel): the connection never got to WhatsApp.
  if ((boom.data as { code?: unknown } | undefined)?.code === PROXY_UNREACHABLE) {
    return { action: 'retry', code, cause: 'proxy_unreachable' }
  }
  const message = String(boom.output?.payload?.message ?? boom.message ?? '')

  switch (code) {
    case 515:
      return { action: 'restart', code, cause: 'restart_required' }
    case 401:
      if (hasDeviceRemovedConflict(boom.data)) return { action: 'logout', code, cause: 'device_removed' }
      if (message.includes('Intentional Logout')) return { action: 'logout', code, cause: 'logged_out' }
      return { action: 'logout', code, cause: 'credentials_rejected' }
    case 403:
      return { action: 'logout', code, cause: 'account_locked' }
    case 406:
      return { action: 'logout', code, cause: 'account_banned' }
    case 411:
      return { action: 'logout', code, cause: 'multidevice_mismatch' }
    case 402:
      return { action: 'stop', code, cause: 'temporarily_banned' }
    case 405:
      return { action: 'stop', code, cause: 'client_outdated' }
    case 409:
      return { action: 'stop', code, cause: 'bad_user_agent' }
    case 408:
      if (message.includes('QR refs attempts ended'))
        return { action: 'qr_expired', code, cause: 'qr_expired' }
      return {
        action: 'retry',
        code,
        cause: message.startsWith('WebSocket Error') ? 'network_error' : 'connection_lost',
      }
    case 428:
      return { action: 'retry', code, cause: 'connection_closed' }
    case 440:
      // Another client logged in with these credentials: reconnecting would only take the session back and
      // start a fight between the two copies, so the user decides.
      return { action: 'stop', code, cause: 'connection_replaced' }
    case 503:
      return { action: 'retry', code, cause: 'service_unavailable' }
    default:
      return {
        action: 'retry',
        code,
        cause: message.startsWith('WebSocket Error') ? 'network_error' : 'server_error',
      }
  }
}
