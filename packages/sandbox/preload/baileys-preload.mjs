// Points any Baileys program at a running sandbox without changing its code:
//
//   LINKDESK_SANDBOX_CONTROL=http://127.0.0.1:7000/sandbox node --import @linkdesk/sandbox/preload your-bot.js
//
// It reads the sandbox's endpoint, then sets in every Baileys copy the program loads (CommonJS, as Baileys 6,
// or ES modules, as Baileys 7) the default WebSocket URL and the root key the server's certificate chain is
// checked against, and makes the process trust the sandbox media host's certificate (https and fetch alike).
// Plain JavaScript, so that node loads it without a TypeScript loader.
import { Buffer } from 'node:buffer'
import { globalAgent } from 'node:https'
import Module, { register } from 'node:module'
import { rootCertificates } from 'node:tls'
import { Agent, setGlobalDispatcher } from 'undici'

const control = process.env.LINKDESK_SANDBOX_CONTROL ?? 'http://127.0.0.1:7000/sandbox'
const endpoint = await readEndpoint(control)

// The media host's certificate is its own CA: trusted beside the public ones, for uploads and downloads.
const ca = [...rootCertificates, endpoint.media_ca]
globalAgent.options.ca = ca
setGlobalDispatcher(new Agent({ connect: { ca } }))

const pointed = new WeakSet()
/** Sets a Baileys copy's defaults (its Defaults module's exports) to the sandbox's, once. */
function pointAtSandbox(defaults) {
  const config = defaults?.DEFAULT_CONNECTION_CONFIG
  const certificate = defaults?.WA_CERT_DETAILS
  if (!config || !certificate || pointed.has(config)) return
  pointed.add(config)
  config.waWebSocketUrl = endpoint.websocket
  certificate.PUBLIC_KEY = Buffer.from(endpoint.root_key, 'hex')
}
globalThis[Symbol.for('linkdesk.sandbox.pointAtSandbox')] = pointAtSandbox

// CommonJS Baileys: each module as it is required (the defaults are set once its exports are filled).
const load = Module._load
Module._load = function loadPointed(...args) {
  const exports = load.apply(this, args)
  if (exports && typeof exports === 'object' && 'WA_CERT_DETAILS' in exports) pointAtSandbox(exports)
  return exports
}
// ES module Baileys: its Defaults module calls pointAtSandbox as it loads (see the hooks).
register('./baileys-hooks.mjs', import.meta.url)

async function readEndpoint(url) {
  let response
  try {
    response = await globalThis.fetch(`${url}/endpoint`)
  } catch (error) {
    throw new Error(
      `No sandbox answers at ${url} (LINKDESK_SANDBOX_CONTROL): ${error.cause?.message ?? error}`,
    )
  }
  if (!response.ok)
    throw new Error(`The sandbox at ${url} answered its endpoint with HTTP ${response.status}.`)
  return response.json()
}
