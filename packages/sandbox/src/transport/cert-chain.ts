import { Curve, proto, type KeyPair } from '@whiskeysockets/baileys'
import { defineTable, type SandboxState } from '../state/sandbox-state'

/** The sandbox's Noise identity: a root key clients trust, a static key, and the chain linking them. */
export interface ServerIdentity {
  rootKey: KeyPair
  staticKey: KeyPair
  certChain: Uint8Array
}

const DAY = 86_400

function details(serial: number, issuerSerial: number, key: Uint8Array, lifetimeDays: number): Uint8Array {
  const now = Math.floor(Date.now() / 1000)
  return proto.CertChain.NoiseCertificate.Details.encode({
    serial,
    issuerSerial,
    key,
    notBefore: now - DAY,
    notAfter: now + lifetimeDays * DAY,
  }).finish()
}

/** The root key clients trust; kept, so that clients linked before a restart still trust the server. */
const ROOT_KEY = defineTable<KeyPair>({ name: 'root-key' })

/**
 * The sandbox's root key (made once, then kept in its state) and the two-level chain Baileys verifies, made
 * fresh at each start: the root signs an intermediate (issuer serial 0, as `WA_CERT_DETAILS.SERIAL`), the
 * intermediate signs a leaf for the static key.
 */
export function createServerIdentity(state: SandboxState): ServerIdentity {
  const stored = state.open(ROOT_KEY)
  let rootKey = stored.get('root')
  if (!rootKey) {
    rootKey = Curve.generateKeyPair()
    stored.put('root', rootKey)
  }
  const staticKey = Curve.generateKeyPair()
  const intermediateKey = Curve.generateKeyPair()
  const intermediateDetails = details(1, 0, intermediateKey.public, 365)
  const leafDetails = details(2, 1, staticKey.public, 30)
  const certChain = proto.CertChain.encode({
    intermediate: {
      details: intermediateDetails,
      signature: Curve.sign(rootKey.private, intermediateDetails),
    },
    leaf: { details: leafDetails, signature: Curve.sign(intermediateKey.private, leafDetails) },
  }).finish()
  return { rootKey, staticKey, certChain }
}
