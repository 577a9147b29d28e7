import { request } from 'undici'
import { wallClock } from './stats'

const MARKER = /bench:(\d+(?:\.\d+)?)/

/** What the stream saw since the last take: latency of each marked event and when the last one came. */
export interface StreamReport {
  latencies: number[]
  lastAt: number
}

/**
 * Follows the app's live event stream (SSE, `{api}/stream`) for one event name and times each event carrying a
 * `bench:<ms>` marker: the moment the app emitted (and committed) it, before any webhook delivery.
 */
export async function followLiveStream(
  apiBase: string,
  token: string,
  event: string,
): Promise<{ take(): StreamReport; close(): void }> {
  const controller = new AbortController()
  const url = `${apiBase}/stream?access_token=${encodeURIComponent(token)}&event=${encodeURIComponent(event)}`
  const response = await request(url, { signal: controller.signal, headersTimeout: 10_000, bodyTimeout: 0 })
  if (response.statusCode !== 200) throw new Error(`live stream: HTTP ${response.statusCode}`)
  let report: StreamReport = { latencies: [], lastAt: 0 }
  let buffered = ''
  response.body.setEncoding('utf8')
  response.body.on('data', (chunk: string) => {
    const now = wallClock()
    buffered += chunk
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) {
      if (!line.startsWith('data:')) continue
      const marker = MARKER.exec(line)
      if (!marker) continue
      report.latencies.push(now - Number(marker[1]))
      report.lastAt = now
    }
  })
  response.body.on('error', () => undefined)
  return {
    take: () => {
      const taken = report
      report = { latencies: [], lastAt: 0 }
      return taken
    },
    close: () => controller.abort(),
  }
}
