import { DEFAULT_CONNECTION_CONFIG } from '@whiskeysockets/baileys'
import { parseClientRevision } from '@linkdesk/sandbox/protocol'
import type { Logger } from '../logger'
import type { WaVersionInfo } from '../contract/network'

/** A WhatsApp Web client version, as the network checks it at every login: `[2, 3000, <revision>]`. */
export type WaVersion = [number, number, number]

/** The version Baileys was released with: used until a fetch succeeds, and whenever none does. */
export const BUNDLED_WA_VERSION: WaVersion = [...DEFAULT_CONNECTION_CONFIG.version] as WaVersion

/** Where WhatsApp Web's service worker states the current client revision. */
export const WHATSAPP_VERSION_URL = 'https://web.whatsapp.com/sw.js'

/**
 * A current desktop Chrome's User-Agent: WhatsApp Web serves its service worker to browsers, and a request
 * without one (Node's fetch says `node`) may be answered with another page or refused.
 */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36'

export interface WaVersionSourceOptions {
  /** The version document's URL; empty: never fetch, keep the bundled version. */
  url: string
  timeoutMs: number
  logger: Logger
  fetchImpl?: typeof fetch
  now?: () => number
}

/** The version a version document (WhatsApp Web's `sw.js`, or a sandbox's) states; undefined when none. */
export function parseVersionDocument(text: string): WaVersion | undefined {
  const revision = parseClientRevision(text)
  if (revision === undefined) return undefined
  return [BUNDLED_WA_VERSION[0], BUNDLED_WA_VERSION[1], revision]
}

export function formatVersion(version: WaVersion): string {
  return version.join('.')
}

/**
 * The client version every new socket announces. Fetched at start and again when the network refuses a
 * version as too old (405), with Linkdesk's own fetcher: a configurable URL (a sandbox serves its own
 * document), a timeout, and the bundled version as the fallback. Baileys' helper is not used: it has no
 * timeout and always asks the real site. Concurrent refreshes share one fetch.
 */
export class WaVersionSource {
  private version: WaVersion = BUNDLED_WA_VERSION
  private source: WaVersionInfo['source'] = 'bundled'
  private checkedAt: number | null = null
  private inFlight: Promise<WaVersion> | undefined
  private readonly now: () => number

  constructor(private readonly options: WaVersionSourceOptions) {
    this.now = options.now ?? Date.now
  }

  /** The version for the next socket. */
  get current(): WaVersion {
    return [...this.version] as WaVersion
  }

  info(): WaVersionInfo {
    return { version: formatVersion(this.version), source: this.source, checked_at: this.checkedAt }
  }

  /** Fetches the version document now (sharing a fetch already under way); answers the version in use after it. */
  refresh(): Promise<WaVersion> {
    this.inFlight ??= this.fetchVersion().finally(() => (this.inFlight = undefined))
    return this.inFlight
  }

  private async fetchVersion(): Promise<WaVersion> {
    const { url, timeoutMs, logger } = this.options
    if (!url) return this.current
    const fetchImpl = this.options.fetchImpl ?? fetch
    try {
      const response = await fetchImpl(url, {
        headers: { 'user-agent': BROWSER_USER_AGENT },
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      const fetched = parseVersionDocument(await response.text())
      if (!fetched) throw new Error('no client_revision in the document')
      if (formatVersion(fetched) !== formatVersion(this.version)) {
        logger.info(
          { version: formatVersion(fetched), previous: formatVersion(this.version) },
          'client version',
        )
      }
      this.version = fetched
      this.source = 'fetched'
    } catch (error) {
      // The last known version stays (the bundled one until a fetch succeeds).
      logger.warn({ err: error, url, version: formatVersion(this.version) }, 'client version fetch failed')
    } finally {
      this.checkedAt = Math.floor(this.now() / 1000)
    }
    return this.current
  }
}
