import { getOk, postOk } from './http'
import { compileServer, startNode, type Started } from './processes'

/** The outside sandbox process (`npm run sandbox`) and its control API (no token on that loopback process). */
export interface OutsideSandbox {
  controlUrl: string
  wsUrl: string
  rootKeyHex: string
  /** Undefined when the bench uses a sandbox it did not start (BENCH_SANDBOX_URL). */
  process?: Started
  addContact(phone: string, name?: string): Promise<void>
  link(qr: string, phone: string): Promise<void>
  /** The contact `from` sends a text to the account or group `to`. */
  send(from: string, to: string, text: string): Promise<string>
  /** Cuts every connected device of every account at once (`POST /drop`); answers how many. */
  dropAll(): Promise<number>
  stop(): Promise<void>
}

/**
 * Starts `npm run sandbox` (as `node out/headless/sandbox.js`, compiled, so its pid is the network's own), or
 * attaches to the one at BENCH_SANDBOX_URL. `latency`: its `--latency` (MIN or MIN+JITTER ms); none: the
 * sandbox's default. A benchmark states its own.
 */
export async function startSandbox(options: { latency?: string } = {}): Promise<OutsideSandbox> {
  let started: Started | undefined
  let controlUrl = process.env.BENCH_SANDBOX_URL
  if (!controlUrl) {
    compileServer()
    const args = ['out/headless/sandbox.js', '--port', '0', '--log-level', 'warn']
    if (options.latency !== undefined) args.push('--latency', options.latency)
    started = await startNode('sandbox', args, {
      waitFor: ['websocket', 'root-key', 'control'],
      compiled: true,
    })
    controlUrl = started.values.get('control') ?? ''
  }
  const base = controlUrl.replace(/\/$/, '')
  const endpoint = await getOk<{ websocket: string; root_key: string }>(`${base}/endpoint`)
  return {
    controlUrl: base,
    wsUrl: String(endpoint.websocket),
    rootKeyHex: String(endpoint.root_key),
    process: started,
    addContact: async (phone, name) =>
      void (await postOk(`${base}/accounts`, { phone, name: name ?? phone })),
    link: async (qr, phone) => void (await postOk(`${base}/link`, { qr, phone, name: `Bench ${phone}` })),
    send: async (from, to, text) =>
      String((await postOk<{ id: string }>(`${base}/accounts/${from}/messages`, { to, text })).id),
    dropAll: async () =>
      Number((await postOk<{ devices: number }>(`${base}/drop`, { mode: 'close' })).devices),
    stop: async () => started?.stop(),
  }
}
