const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase()
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name)
}

function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  const colon = host.lastIndexOf(':')
  return colon === -1 || host.indexOf(':') !== colon ? host : host.slice(0, colon)
}

/** True when a Host header names this machine by a loopback name or the configured host (DNS-rebinding guard). */
export function isAllowedHost(
  hostHeader: string | undefined,
  configuredHost?: string | readonly string[],
): boolean {
  if (!hostHeader) return false
  const hostname = stripPort(hostHeader.trim()).toLowerCase()
  if (isLoopback(hostname)) return true
  return [configuredHost ?? []].flat().some((host) => hostname === host.toLowerCase())
}

/** True when a browser Origin is this app's own (a loopback or configured host over http). */
export function isAllowedOrigin(origin: string, configuredHost?: string | readonly string[]): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  return isAllowedHost(url.host, configuredHost)
}
