import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import ipaddr from 'ipaddr.js'
import { Agent, buildConnector, type Dispatcher } from 'undici'

/** Whether an address is on the public internet: not loopback, private, link-local, reserved or the like. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  return ipaddr.process(address).range() === 'unicast'
}

function privateAddress(host: string): Error {
  return Object.assign(new Error(`${host} is not a public address`), { code: 'EPRIVATEADDRESS' })
}

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void

/** dns.lookup that refuses a name resolving to any address off the public internet. */
function publicLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, [])
    if (addresses.length === 0 || addresses.some(({ address }) => !isPublicAddress(address))) {
      return callback(privateAddress(hostname), [])
    }
    if (options.all) return callback(null, addresses)
    const [first] = addresses as [LookupAddress]
    callback(null, first.address, first.family)
  })
}

/**
 * An HTTP dispatcher that connects to public addresses only, checked on the address actually connected to
 * (after DNS, on every redirect), so that a link taken from a message cannot reach the local network.
 */
export function publicOnlyDispatcher(): Dispatcher {
  const connect = buildConnector({ lookup: publicLookup } as buildConnector.BuildOptions)
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '')
      if (ipaddr.isValid(host) && !isPublicAddress(host)) return callback(privateAddress(host), null)
      connect(options, callback)
    },
  })
}
