import { isIP } from 'node:net'
import { generate } from 'selfsigned'
import { defineTable, type SandboxState } from '../state/sandbox-state'

export interface MediaCertificate {
  certPem: string
  keyPem: string
}

const LIFETIME_MS = 365 * 86_400_000
/** A kept certificate this close to its end is replaced at start. */
const RENEW_BEFORE_MS = 30 * 86_400_000

/** The media host's certificate per host it serves, kept so that clients that trusted it keep trusting it. */
const MEDIA_CERTIFICATES = defineTable<MediaCertificate & { notAfter: number }>({
  name: 'media-certificates',
})

/** The media host's certificate for `host`: the kept one, or a new one (kept) when there is none or it ends soon. */
export async function mediaCertificate(state: SandboxState, host: string): Promise<MediaCertificate> {
  const table = state.open(MEDIA_CERTIFICATES)
  const kept = table.get(host)
  if (kept && kept.notAfter - Date.now() > RENEW_BEFORE_MS)
    return { certPem: kept.certPem, keyPem: kept.keyPem }
  const notAfter = Date.now() + LIFETIME_MS
  const created = await createMediaCertificate(host, notAfter)
  table.put(host, { ...created, notAfter })
  return created
}

/** A self-signed certificate for the media host; it is its own CA. */
async function createMediaCertificate(host: string, notAfter: number): Promise<MediaCertificate> {
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
    notAfterDate: new Date(notAfter),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  })
  return { certPem: result.cert, keyPem: result.private }
}
