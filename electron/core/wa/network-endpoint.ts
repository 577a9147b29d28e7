import { Agent as HttpsAgent } from 'node:https'
import { DEFAULT_CONNECTION_CONFIG, WA_CERT_DETAILS } from '@whiskeysockets/baileys'
import { type Dispatcher, Agent as UndiciAgent } from 'undici'
import { AppError } from '../errors'
import { maskProxy } from '../contract/proxy'
import { proxyAgents } from './proxy'
import { WHATSAPP_VERSION_URL } from './wa-version'

/** Where sockets connect: WhatsApp itself, or a sandbox with its own chat URL, root key and media CA. */
export type NetworkEndpoint =
  | { kind: 'whatsapp' }
  | {
      kind: 'sandbox'
      wsUrl: string
      rootPublicKey: Uint8Array
      mediaCaPem: string
      /** The sandbox's client version document; empty when it serves none. */
      versionUrl: string
    }

/** The part of a socket's config that depends on the network: chat URL, proxy, and media trust and timeouts. */
export interface SocketNetworkConfig {
  waWebSocketUrl: string
  /** For the chat WebSocket: the instance's proxy; absent: a direct connection. */
  agent?: HttpsAgent
  /** For media uploads (Node http/https): the proxy, or the sandbox's CA; absent: Baileys' default. */
  fetchAgent?: HttpsAgent
  /** For media downloads and URL fetches (undici fetch): timeouts always, the sandbox CA in sandbox mode. */
  options: RequestInit & { dispatcher: Dispatcher }
  /** The proxy this goes through (its password masked), for logs; null: direct. */
  proxy: string | null
  /** Releases the HTTP agents. */
  close(): Promise<void>
}

const HTTP_TIMEOUTS = { connectTimeout: 10_000, headersTimeout: 30_000, bodyTimeout: 60_000 }

/** WhatsApp's own chat endpoint, as Baileys ships it. */
export const WHATSAPP_WEBSOCKET_URL = String(DEFAULT_CONNECTION_CONFIG.waWebSocketUrl)

/**
 * The one seam between the app and a sandbox. For WhatsApp it returns Baileys' defaults and touches nothing.
 * For a sandbox it also makes Baileys trust the sandbox's root key (a process-wide setting of Baileys, so it
 * happens only in sandbox mode, the way a test installs a test CA); media trust stays per socket. With a
 * proxy, the chat socket, uploads and downloads all go through it.
 */
export function socketNetworkConfig(
  endpoint: NetworkEndpoint,
  proxy: string | null = null,
): SocketNetworkConfig {
  const sandbox = endpoint.kind === 'sandbox' ? endpoint : undefined
  if (sandbox) WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(sandbox.rootPublicKey)
  const waWebSocketUrl = sandbox ? sandbox.wsUrl : WHATSAPP_WEBSOCKET_URL
  const tls = sandbox ? { ca: sandbox.mediaCaPem } : {}
  if (proxy) {
    const { agent, dispatcher } = proxyAgents(proxy, tls)
    return {
      waWebSocketUrl,
      agent,
      fetchAgent: agent,
      options: { dispatcher },
      proxy: maskProxy(proxy),
      close: async () => {
        agent.destroy()
        await dispatcher.close()
      },
    }
  }
  const dispatcher = new UndiciAgent({ ...HTTP_TIMEOUTS, ...(sandbox ? { connect: tls } : {}) })
  const fetchAgent = sandbox ? new HttpsAgent({ ...tls, keepAlive: true }) : undefined
  return {
    waWebSocketUrl,
    ...(fetchAgent ? { fetchAgent } : {}),
    options: { dispatcher },
    proxy: null,
    close: async () => {
      fetchAgent?.destroy()
      await dispatcher.close()
    },
  }
}

/** The network configs of every instance: the direct one, and one per proxy in use (made on first use). */
export class NetworkRoutes {
  private readonly direct: SocketNetworkConfig
  private readonly proxied = new Map<string, SocketNetworkConfig>()

  constructor(private readonly endpoint: NetworkEndpoint) {
    this.direct = socketNetworkConfig(endpoint)
  }

  /** The config for an instance with that proxy (or none). */
  for(proxy: string | null | undefined): SocketNetworkConfig {
    if (!proxy) return this.direct
    let config = this.proxied.get(proxy)
    if (!config) {
      config = socketNetworkConfig(this.endpoint, proxy)
      this.proxied.set(proxy, config)
    }
    return config
  }

  async close(): Promise<void> {
    await Promise.all([this.direct, ...this.proxied.values()].map((config) => config.close()))
    this.proxied.clear()
  }
}

/** What an outside sandbox's control API says about itself (`GET <control>/endpoint`). */
interface RemoteEndpoint {
  websocket?: unknown
  root_key?: unknown
  media_ca?: unknown
  version_url?: unknown
}

/** Asks an outside sandbox (`--sandbox-url`) for its websocket URL, root key and media CA. */
export async function fetchSandboxEndpoint(
  controlUrl: string,
  fetchImpl: typeof fetch = fetch,
): Promise<NetworkEndpoint> {
  const url = `${controlUrl.replace(/\/$/, '')}/endpoint`
  let body: RemoteEndpoint
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(10_000) })
    if (!response.ok) throw new Error(`HTTP ${response.status}`)
    body = (await response.json()) as RemoteEndpoint
  } catch (error) {
    throw new AppError(
      'upstream_failed',
      `The sandbox at ${controlUrl} did not describe itself: is it running?`,
      {
        cause: error,
      },
    )
  }
  const { websocket, root_key: rootKey, media_ca: mediaCa, version_url: versionUrl } = body
  if (typeof websocket !== 'string' || typeof rootKey !== 'string' || typeof mediaCa !== 'string') {
    throw new AppError(
      'upstream_failed',
      `The sandbox at ${controlUrl} answered an endpoint without websocket, root_key and media_ca.`,
    )
  }
  return {
    kind: 'sandbox',
    wsUrl: websocket,
    rootPublicKey: Buffer.from(rootKey, 'hex'),
    mediaCaPem: mediaCa,
    versionUrl: typeof versionUrl === 'string' ? versionUrl : '',
  }
}

/** Where the current client version is read: the configured URL, else the network's own document. */
export function versionUrlOf(endpoint: NetworkEndpoint, configured: string | undefined): string {
  if (configured !== undefined) return configured
  return endpoint.kind === 'sandbox' ? endpoint.versionUrl : WHATSAPP_VERSION_URL
}
