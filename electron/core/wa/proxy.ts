import type { Agent as HttpsAgent } from 'node:https'
import { connect } from 'node:net'
import type { ConnectionOptions } from 'node:tls'
import { socksDispatcher } from 'fetch-socks'
import { HttpsProxyAgent } from 'https-proxy-agent'
import { SocksProxyAgent } from 'socks-proxy-agent'
import { type Dispatcher, ProxyAgent } from 'undici'
import { maskProxy } from '../contract/proxy'
import { AppError } from '../errors'

const REACH_TIMEOUT_MS = 5_000

/** Marks a failure to reach the proxy itself, so a close it causes is named proxy_unreachable. */
export const PROXY_UNREACHABLE = 'PROXY_UNREACHABLE'

/** Resolves once a TCP connection to the proxy opens; a proxy that cannot be reached is proxy_unreachable. */
export async function checkProxyReachable(proxy: string, timeoutMs = REACH_TIMEOUT_MS): Promise<void> {
  const url = new URL(proxy)
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) })
    const fail = (reason: string) => {
      socket.destroy()
      reject(
        new AppError('proxy_unreachable', `The proxy ${maskProxy(proxy)} cannot be reached: ${reason}.`, {
          details: { parameter: 'proxy' },
        }),
      )
    }
    socket.setTimeout(timeoutMs, () => fail(`no answer within ${timeoutMs / 1000} s`))
    socket.once('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message))
    socket.once('connect', () => {
      socket.destroy()
      resolve()
    })
  })
}

function tagged(error: unknown): Error {
  const reason = error instanceof Error ? error : new Error(String(error))
  return Object.assign(new Error(`proxy unreachable: ${reason.message}`, { cause: reason }), {
    code: PROXY_UNREACHABLE,
  })
}

/**
 * An HTTP(S) CONNECT proxy agent whose failures to reach the proxy carry PROXY_UNREACHABLE; `target` is how
 * the far end of the tunnel is trusted (the agent's own options only apply to the proxy connection).
 */
class TaggedHttpsProxyAgent extends HttpsProxyAgent<string> {
  constructor(
    proxy: string,
    private readonly target: ConnectionOptions,
  ) {
    super(proxy, { keepAlive: true })
  }

  override async connect(...[request, options]: Parameters<HttpsProxyAgent<string>['connect']>) {
    try {
      return await super.connect(request, { ...options, ...this.target })
    } catch (error) {
      throw tagged(error)
    }
  }
}

/** A SOCKS proxy agent whose failures to reach the proxy carry PROXY_UNREACHABLE. */
class TaggedSocksProxyAgent extends SocksProxyAgent {
  override async connect(...args: Parameters<SocksProxyAgent['connect']>) {
    try {
      return await super.connect(...args)
    } catch (error) {
      throw tagged(error)
    }
  }
}

/** The agents that send one instance's traffic through its proxy: the chat socket, uploads and downloads. */
export interface ProxyAgents {
  /** For the chat WebSocket and media uploads (Node http/https). */
  agent: HttpsAgent
  /** For media downloads and fetches (undici). */
  dispatcher: Dispatcher
}

/** Builds the agents for a proxy; `tls` is how the far end is trusted (a sandbox's CA). */
export function proxyAgents(proxy: string, tls: ConnectionOptions = {}): ProxyAgents {
  const url = new URL(proxy)
  if (url.protocol.startsWith('socks')) {
    const type = url.protocol.startsWith('socks4') ? 4 : 5
    return {
      agent: new TaggedSocksProxyAgent(proxy, { ...tls, keepAlive: true }) as unknown as HttpsAgent,
      dispatcher: socksDispatcher(
        {
          type,
          host: url.hostname,
          port: Number(url.port),
          userId: url.username ? decodeURIComponent(url.username) : undefined,
          password: url.password ? decodeURIComponent(url.password) : undefined,
        },
        { connect: tls },
      ),
    }
  }
  return {
    agent: new TaggedHttpsProxyAgent(proxy, tls) as unknown as HttpsAgent,
    dispatcher: new ProxyAgent({ uri: proxy, requestTls: tls, proxyTls: tls }),
  }
}
