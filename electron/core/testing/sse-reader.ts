/** One Server-Sent Events frame as a client sees it. */
export interface SseFrame {
  id?: string
  event?: string
  data: string
}

/** Reads frames from an SSE response body as they arrive; comments (heartbeats) are skipped. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>
  private readonly decoder = new TextDecoder()
  private buffer = ''
  readonly frames: SseFrame[] = []

  constructor(response: Response) {
    if (!response.body) throw new Error('the response has no body')
    this.reader = response.body.getReader()
  }

  /** Reads until `count` frames (in total) have arrived, or rejects after the timeout. */
  async until(count: number, timeoutMs = 10_000): Promise<SseFrame[]> {
    const deadline = Date.now() + timeoutMs
    while (this.frames.length < count) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`SSE: ${this.frames.length} of ${count} frames within ${timeoutMs} ms`)
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`SSE: ${this.frames.length} of ${count} frames in time`)),
          left,
        )
      })
      const chunk = await Promise.race([this.reader.read(), timeout]).finally(() => clearTimeout(timer))
      if (chunk.done) throw new Error(`SSE: stream ended after ${this.frames.length} frames`)
      this.buffer += this.decoder.decode(chunk.value, { stream: true })
      this.parse()
    }
    return this.frames
  }

  async close(): Promise<void> {
    await this.reader.cancel()
  }

  private parse(): void {
    let end: number
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end)
      this.buffer = this.buffer.slice(end + 2)
      const frame: SseFrame = { data: '' }
      let hasData = false
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'id') frame.id = value
        if (field === 'event') frame.event = value
        if (field === 'data') {
          frame.data = hasData ? `${frame.data}\n${value}` : value
          hasData = true
        }
      }
      if (hasData) this.frames.push(frame)
    }
  }
}
