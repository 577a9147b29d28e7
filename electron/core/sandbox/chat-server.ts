import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import type { Logger } from '../logger'
import { logIn } from './accounts/login'
import type { PairingRegistry } from './accounts/pairing'
import { registerGroupQueries } from './groups/group-queries'
import { handleClientMessage } from './messages/client-messages'
import { handleClientReceipt } from './messages/retry-receipts'
import type { SandboxNetwork } from './network'
import { registerPreKeyQueries } from './stanzas/prekey-queries'
import { registerSessionQueries } from './stanzas/session-queries'
import { StanzaRouter } from './stanzas/stanza-router'
import { registerUsyncQueries } from './stanzas/usync-queries'
import type { ServerIdentity } from './transport/cert-chain'
import { ClientConnection } from './transport/client-connection'

export interface ChatServer {
  wsUrl: string
  close(): Promise<void>
}

export interface ChatServerOptions {
  host: string
  port: number
  network: SandboxNetwork
  identity: ServerIdentity
  pairing: PairingRegistry
  logger: Logger
}

function createRouter(): StanzaRouter {
  const router = new StanzaRouter()
  registerSessionQueries(router)
  registerPreKeyQueries(router)
  registerUsyncQueries(router)
  registerGroupQueries(router)
  return router.stanza('message', handleClientMessage).stanza('receipt', handleClientReceipt)
}

/** The websocket endpoint clients connect to, as they would to web.whatsapp.com/ws/chat. */
export async function startChatServer(options: ChatServerOptions): Promise<ChatServer> {
  const { network, identity, pairing, logger } = options
  const router = createRouter()
  const connections = new Set<ClientConnection>()
  const server = new WebSocketServer({ host: options.host, port: options.port, maxPayload: 32 * 1024 * 1024 })

  server.on('connection', (socket) => {
    const log = logger.child({ connection: connections.size })
    const connection: ClientConnection = new ClientConnection(
      socket,
      identity,
      {
        onHandshake(conn, payload) {
          if (payload.devicePairingData) pairing.start(conn, payload.devicePairingData)
          else logIn(network, conn, payload, log)
        },
        onStanza(conn, stanza) {
          const ctx = { network, connection: conn, session: network.sessions.get(conn), log }
          router
            .dispatch(ctx, stanza)
            .catch((error: unknown) => log.warn({ err: error, tag: stanza.tag }, 'stanza failed'))
        },
        onClose(conn) {
          connections.delete(conn)
          pairing.forget(conn)
          const session = network.sessions.get(conn)
          if (!session) return
          network.sessions.delete(conn)
          if (session.device.connection === conn) session.device.connection = undefined
          network.events.emit('disconnect', { phone: session.account.phone, device: session.device.id })
        },
      },
      log,
    )
    connections.add(connection)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve)
    server.once('error', reject)
  })
  const { port } = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    wsUrl: `ws://${host}:${port}/ws/chat`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of connections) connection.terminate()
        server.close(() => resolve())
      }),
  }
}
