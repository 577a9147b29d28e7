import { isIP } from 'node:net'
import { generate } from 'selfsigned'

export interface MediaCertificate {
  certPem: string
  keyPem: string
}

/** A self-signed certificate for the media host, made at start; it is its own CA. */
export async function createMediaCertificate(host: string): Promise<MediaCertificate> {
  const altNames = [
    { type: 7 as const, ip: '127.0.0.1' },
    { type: 2 as const, value: 'localhost' },
    ...(host !== '127.0.0.1' && host !== 'localhost'
      ? [isIP(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }]
      : []),
  ]
  const result = await generate([{ name: 'commonName', value: 'Linkdesk sandbox media host' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 365 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  })
  return { certPem: result.cert, keyPem: result.private }
}
