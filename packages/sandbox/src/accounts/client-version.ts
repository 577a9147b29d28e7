import { DEFAULT_CONNECTION_CONFIG, type proto } from '@whiskeysockets/baileys'
import { SandboxError } from '../errors'
import { clientVersionDocument } from '../protocol/client-version'
import type { Logger } from '../logger'
import { defineTable, type SandboxState, type StateTable } from '../state/sandbox-state'
import type { ClientConnection } from '../transport/client-connection'
import { refuse } from './login'

/** `[2, 3000, <revision>]`, compared part by part. */
export type ClientVersion = [number, number, number]

const VERSION_TEXT = /^(\d{1,4})\.(\d{1,6})\.(\d{1,15})$/

/** Reads "2.3000.1043857760"; anything else is a 400 naming the field. */
export function parseClientVersion(text: unknown, field: string): ClientVersion {
  const match = typeof text === 'string' ? VERSION_TEXT.exec(text) : null
  if (!match)
    throw new SandboxError('invalid_parameter', `${field} must be a version such as 2.3000.1043857760.`)
  return [Number(match[1]), Number(match[2]), Number(match[3])]
}

function compare(a: ClientVersion, b: ClientVersion): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]
}

interface PolicyRecord {
  current: ClientVersion
  minimum: ClientVersion | null
}

/** The one policy record, under the key `policy`. */
const CLIENT_VERSIONS = defineTable<PolicyRecord>({ name: 'client-versions' })

/**
 * Which web-client versions the network accepts, and the current one it announces in its version
 * document, as WhatsApp's servers move both with each web release. By default every version is accepted
 * and the current one is the version Baileys was released with. Kept in the sandbox's state.
 */
export class ClientVersionPolicy {
  private readonly table: StateTable<PolicyRecord>

  constructor(state: SandboxState) {
    this.table = state.open(CLIENT_VERSIONS)
  }

  get current(): ClientVersion {
    return this.record().current
  }

  get minimum(): ClientVersion | undefined {
    return this.record().minimum ?? undefined
  }

  /** Moves both at once, as a web release does. */
  set(current: ClientVersion, minimum: ClientVersion | undefined): void {
    this.table.put('policy', { current, minimum: minimum ?? null })
  }

  private record(): PolicyRecord {
    return (
      this.table.get('policy') ?? {
        current: [...DEFAULT_CONNECTION_CONFIG.version] as ClientVersion,
        minimum: null,
      }
    )
  }

  /** The version a client announces in its login or registration payload. */
  static announced(payload: proto.IClientPayload): ClientVersion {
    const version = payload.userAgent?.appVersion
    return [version?.primary ?? 0, version?.secondary ?? 0, version?.tertiary ?? 0]
  }

  accepts(version: ClientVersion): boolean {
    return this.minimum === undefined || compare(version, this.minimum) >= 0
  }

  /** The version document, shaped like the real `sw.js`: the revision inside an escaped JSON string. */
  document(): string {
    return clientVersionDocument(this.current[2])
  }
}

/**
 * The real server answers a client version below its minimum with `<failure reason="405">` right after
 * the handshake, for a login as for a registration (QR). Returns whether the client was refused.
 */
export function refuseOutdatedClient(
  policy: ClientVersionPolicy,
  connection: ClientConnection,
  payload: proto.IClientPayload,
  log: Logger,
): boolean {
  const version = ClientVersionPolicy.announced(payload)
  if (policy.accepts(version)) return false
  log.debug({ version: version.join('.'), minimum: policy.minimum?.join('.') }, 'client version refused')
  refuse(connection, 405)
  return true
}
