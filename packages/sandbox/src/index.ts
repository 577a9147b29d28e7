import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from './logger'
import { PairingRegistry } from './accounts/pairing'
import { startChatServer, type ChatServer } from './chat-server'
import type { SandboxControl, SandboxEndpoint } from './control/control-types'
import { createSandboxControl } from './control/sandbox-control'
import { mediaCertificate } from './media/media-certificate'
import { startMediaHost, type MediaHost } from './media/media-host'
import { DEFAULT_TIMINGS, SandboxNetwork, type NetworkTimings } from './network'
import {
  defineTable,
  memoryState,
  openSandboxState,
  resetSandboxState,
  type SandboxState,
} from './state/sandbox-state'
import { createServerIdentity } from './transport/cert-chain'

export type { SandboxAccountInfo, SandboxControl, SandboxEndpoint } from './control/control-types'
export type { SandboxChannelInfo, SandboxChannelPost } from './control/channel-control'
export type { SandboxInboxEntry } from './messages/inbox'
export type { NetworkTimings } from './network'
export type { Logger } from './logger'
export { SANDBOX_ERROR_CODES, SandboxError, type SandboxErrorCode } from './errors'
export { registerSandboxRoutes } from './control/control-routes'
export type { ControlRouteDoc } from './control/control-schemas'
export { createControlApp, type ControlAppOptions } from './control/control-app'

export interface SandboxOptions {
  logger: Logger
  /** Loopback by default. */
  host?: string
  /** The chat websocket's port; 0 (default) picks a free one, or the previous one when the state is kept. */
  port?: number
  timings?: Partial<NetworkTimings>
  /**
   * The folder that keeps the network's state (accounts, devices, keys, sessions, groups, media, inboxes,
   * queues), so that a restart finds every linked device as it was. Without one, everything lives in memory.
   */
  stateDir?: string
  /** Deletes the kept state before starting: a fresh network. */
  reset?: boolean
}

export interface Sandbox {
  endpoint: SandboxEndpoint
  control: SandboxControl
  close(): Promise<void>
}

/** Where the network listened and the media upload token, kept so that a restart looks the same to clients. */
interface EndpointRecord {
  chatPort: number
  mediaPort: number
  mediaAuth: string
}

const ENDPOINT = defineTable<EndpointRecord>({ name: 'endpoint' })

/** Listens on the preferred port when it is free, else on any free port. */
async function onPreferredPort<T>(
  preferred: number | undefined,
  listen: (port: number) => Promise<T>,
  log: Logger,
): Promise<T> {
  if (preferred) {
    try {
      return await listen(preferred)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
      log.warn({ port: preferred }, 'the previous port is taken; listening on another')
    }
  }
  return listen(0)
}

function openState(options: SandboxOptions, log: Logger): SandboxState {
  if (!options.stateDir) return memoryState()
  if (options.reset) {
    resetSandboxState(options.stateDir)
    log.info({ stateDir: options.stateDir }, 'sandbox state reset')
  }
  return openSandboxState(options.stateDir, log)
}

/** Starts the simulated network: the chat websocket, the HTTPS media host and the control surface. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1'
  const log = options.logger.child({ module: 'sandbox' })
  const state = openState(options, log)
  const network = new SandboxNetwork(log, { ...DEFAULT_TIMINGS, ...options.timings }, state)
  const endpoints = state.open(ENDPOINT)
  const previous = endpoints.get('endpoint')
  network.mediaAuth = previous?.mediaAuth ?? randomBytes(18).toString('base64url')
  const identity = createServerIdentity(state)
  const caDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'linkdesk-sandbox-')))
  let mediaHost: MediaHost | undefined
  let chat: ChatServer | undefined
  const close = async (): Promise<void> => {
    network.close()
    await chat?.close()
    await mediaHost?.close()
    await state.close()
    if (!options.stateDir) await rm(caDir, { recursive: true, force: true })
  }
  try {
    const certificate = await mediaCertificate(state, host)
    const mediaCaPath = join(caDir, 'media-ca.pem')
    await writeFile(mediaCaPath, certificate.certPem)
    mediaHost = await onPreferredPort(
      previous?.mediaPort,
      (port) =>
        startMediaHost({
          host,
          port,
          certificate,
          store: network.media,
          auth: network.mediaAuth,
          logger: log.child({ part: 'media' }),
        }),
      log,
    )
    const pairing = new PairingRegistry(network)
    chat = await onPreferredPort(
      options.port || previous?.chatPort,
      (port) => startChatServer({ host, port, network, identity, pairing, logger: log }),
      log,
    )
    endpoints.put('endpoint', {
      chatPort: Number(new URL(chat.wsUrl).port),
      mediaPort: Number(mediaHost.hostname.slice(mediaHost.hostname.lastIndexOf(':') + 1)),
      mediaAuth: network.mediaAuth,
    })
    const endpoint: SandboxEndpoint = {
      wsUrl: chat.wsUrl,
      rootPublicKey: Buffer.from(identity.rootKey.public),
      mediaCaPem: certificate.certPem,
      mediaCaPath,
      versionUrl: chat.versionUrl,
    }
    log.info(
      { wsUrl: endpoint.wsUrl, mediaHost: mediaHost.hostname, stateDir: options.stateDir ?? null },
      'sandbox network started',
    )
    return { endpoint, control: createSandboxControl(network, pairing, endpoint), close }
  } catch (error) {
    await close()
    throw error
  }
}
