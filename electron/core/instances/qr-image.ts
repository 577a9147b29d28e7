import QRCode from 'qrcode'

/** The PNG data URI of a QR code that encodes exactly `text`. */
export function qrDataUri(text: string): Promise<string> {
  return QRCode.toDataURL(text, { type: 'image/png', errorCorrectionLevel: 'L', margin: 2, scale: 6 })
}
