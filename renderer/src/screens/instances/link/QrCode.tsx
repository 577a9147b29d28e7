import type { QrUpdateData } from '../../../api/types'
import { useNow } from '../../../app/use-now'
import './QrCode.css'

/** The QR code to scan, and how long it stays valid; a new one replaces it by itself. */
export function QrCode({ qr }: { qr: Pick<QrUpdateData, 'qr' | 'expires_at' | 'count'> }) {
  const now = useNow()
  const left = Math.max(0, qr.expires_at - now)
  return (
    <figure className="qr">
      <img src={qr.qr} alt={`QR code number ${qr.count} to link an account`} width={264} height={264} />
      <figcaption>
        {left > 0 ? (
          <>
            Valid for <strong className="countdown">{left} s</strong>; a new code replaces it by itself.
          </>
        ) : (
          'This code expired: the next one appears in a moment.'
        )}
      </figcaption>
      <span className="visually-hidden" aria-live="polite">
        {qr.count > 1 ? `QR code number ${qr.count} is shown.` : 'A QR code is shown.'}
      </span>
    </figure>
  )
}
