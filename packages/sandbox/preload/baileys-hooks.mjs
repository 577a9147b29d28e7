// Module hooks the preload registers: an ES module Baileys' Defaults module, as it loads, hands its defaults to
// the preload (which sets the sandbox's WebSocket URL and root key in them).
const DEFAULTS = /\/lib\/Defaults\/index\.js$/

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context)
  if (result.format !== 'module' || !DEFAULTS.test(url)) return result
  const source =
    typeof result.source === 'string' ? result.source : Buffer.from(result.source).toString('utf8')
  if (
    !source.includes('export const WA_CERT_DETAILS') ||
    !source.includes('export const DEFAULT_CONNECTION_CONFIG')
  )
    return result
  const handOver =
    "\nglobalThis[Symbol.for('linkdesk.sandbox.pointAtSandbox')]?.({ DEFAULT_CONNECTION_CONFIG, WA_CERT_DETAILS })\n"
  return { ...result, source: source + handOver }
}
