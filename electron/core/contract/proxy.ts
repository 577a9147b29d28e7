import { AppError } from '../errors'

/** The proxy kinds an instance can go through. */
const PROXY_PROTOCOLS = ['http:', 'https:', 'socks4:', 'socks4a:', 'socks5:', 'socks5h:']

function invalid(message: string): AppError {
  return new AppError('invalid_parameter', message, { details: { parameter: 'proxy' } })
}

/**
 * Reads a proxy URL: `http://`, `https://`, `socks4://`, `socks5://` (or `socks5h://`, names resolved by the
 * proxy), a host and a port, optionally `user:password@`; nothing else (no path, query or fragment).
 */
export function parseProxyUrl(value: string): string {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalid('proxy must be a URL such as socks5://user:password@203.0.113.7:1080 or http://proxy:3128.')
  }
  if (!PROXY_PROTOCOLS.includes(url.protocol)) {
    throw invalid(`proxy must be http, https, socks4 or socks5 (not ${url.protocol.replace(':', '')}).`)
  }
  if (!url.hostname || !url.port) throw invalid('proxy must name a host and a port.')
  if ((url.pathname && url.pathname !== '/') || url.search || url.hash) {
    throw invalid('proxy must be only scheme, credentials, host and port.')
  }
  return `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}`
}

/** The proxy URL as lists and logs show it: the password replaced. */
export function maskProxy(proxy: string | null | undefined): string | null {
  if (!proxy) return null
  const url = new URL(proxy)
  if (url.password) url.password = '***'
  return `${url.protocol}//${url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : ''}${url.host}`
}
