import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from '../logger'
import { PairingRegistry } from './accounts/pairing'
import { startChatServer, type ChatServer } from './chat-server'
import type { SandboxControl, SandboxEndpoint } from './control/control-types'
import { createSandboxControl } from './control/sandbox-control'
import { createMediaCertificate } from './media/media-certificate'
import { startMediaHost, type MediaHost } from './media/media-host'
import { DEFAULT_TIMINGS, SandboxNetwork, type NetworkTimings } from './network'
import { createServerIdentity } from './transport/cert-chain'

export type { SandboxControl, SandboxEndpoint } from './control/control-types'
export type { SandboxInboxEntry } from './messages/inbox'
export type { NetworkTimings } from './network'
export { registerSandboxRoutes } from './control/control-routes'

export interface SandboxOptions {
  logger: Logger
  /** Loopback by default. */
  host?: string
  /** 0 (default) picks a free port. */
  port?: number
  timings?: Partial<NetworkTimings>
}

export interface Sandbox {
  endpoint: SandboxEndpoint
  control: SandboxControl
  close(): Promise<void>
}

/** Starts the simulated network: the chat websocket, the HTTPS media host and the control surface. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const host = options.host ?? '127.0.0.1'
  const log = options.logger.child({ module: 'sandbox' })
  const network = new SandboxNetwork(log, { ...DEFAULT_TIMINGS, ...options.timings })
  network.mediaAuth = randomBytes(18).toString('base64url')
  const identity = createServerIdentity()
  const caDir = await mkdtemp(join(tmpdir(), 'linkdesk-sandbox-'))
  let mediaHost: MediaHost | undefined
  let chat: ChatServer | undefined
  const close = async (): Promise<void> => {
    network.close()
    await chat?.close()
    await mediaHost?.close()
    await rm(caDir, { recursive: true, force: true })
  }
  try {
    const certificate = await createMediaCertificate(host)
    const mediaCaPath = join(caDir, 'media-ca.pem')
    await writeFile(mediaCaPath, certificate.certPem)
    mediaHost = await startMediaHost({
      host,
      certificate,
      store: network.media,
      auth: network.mediaAuth,
      logger: log.child({ part: 'media' }),
    })
    const pairing = new PairingRegistry(network)
    chat = await startChatServer({ host, port: options.port ?? 0, network, identity, pairing, logger: log })
    const endpoint: SandboxEndpoint = {
      wsUrl: chat.wsUrl,
      rootPublicKey: Buffer.from(identity.rootKey.public),
      mediaCaPem: certificate.certPem,
      mediaCaPath,
    }
    log.info({ wsUrl: endpoint.wsUrl, mediaHost: mediaHost.hostname }, 'sandbox network started')
    return { endpoint, control: createSandboxControl(network, pairing, endpoint), close }
  } catch (error) {
    await close()
    throw error
  }
}
