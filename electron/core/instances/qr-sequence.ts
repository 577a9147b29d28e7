import type { Timings } from '../config'
import type { Logger } from '../logger'
import type { QrCode } from '../contract/instance-state'
import { qrDataUri } from './qr-image'

const FIRST_QR_LIFETIME_MS = 60_000
const NEXT_QR_LIFETIME_MS = 20_000

/**
 * The QR codes of one link wait: numbers them, gives each its lifetime and renders its image. An image still
 * rendering when the wait moved on (a scan, a close, a new socket: `invalidate`) is never shown.
 */
export class QrSequence {
  private count = 0
  /** Bumped whenever a pending QR image must not be shown any more. */
  private generation = 0

  constructor(
    private readonly options: {
      timings: Pick<Timings, 'qrTimeoutMs'>
      logger: Logger
      now: () => number
      /** Shows a rendered QR code that is still the wait's current one. */
      show(qr: QrCode): void
    },
  ) {}

  /** A new link wait begins: its first QR code is number 1 again, with the first one's lifetime. */
  restart(): void {
    this.count = 0
  }

  /** No QR image rendering now may be shown any more. */
  invalidate(): void {
    this.generation += 1
  }

  /** The network sent the next QR code of the wait. */
  received(text: string): void {
    this.count += 1
    const count = this.count
    const generation = this.generation
    const lifetime =
      this.options.timings.qrTimeoutMs || (count === 1 ? FIRST_QR_LIFETIME_MS : NEXT_QR_LIFETIME_MS)
    const expiresAt = this.options.now() + lifetime
    qrDataUri(text).then(
      (dataUri) => {
        if (generation !== this.generation) return
        this.options.show({ dataUri, text, expiresAt, count })
      },
      (error: unknown) => this.options.logger.error({ err: error }, 'QR image failed'),
    )
  }
}
