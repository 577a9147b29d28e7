import { decodeQr } from '../../../bench/harness/app'
import type { OutsideSandbox } from '../../../bench/harness/sandbox'
import { startNode, type Started } from '../../../bench/harness/processes'
import { waitFor } from './webhook-receiver'

/**
 * `serve` as the kill -9 tests run it: its own process under tsx, against an outside sandbox, pacing off, with
 * the test's token and store environment; answers once it printed its API address.
 */
export function startStormServe(
  dataDir: string,
  controlUrl: string,
  env: Record<string, string>,
): Promise<Started> {
  return startNode(
    'serve',
    [
      'electron/headless/serve.ts',
      ...['--sandbox-url', controlUrl, '--port', '0', '--data-dir', dataDir],
      ...['--send-interval-ms', '0', '--log-level', 'warn'],
    ],
    { waitFor: ['api'], env, timeoutMs: 60_000 },
  )
}

/** Kills the process with SIGKILL, as a crash would, and waits for it to be gone. */
export async function killNow(app: Started): Promise<void> {
  const exited = new Promise((resolve) => app.child.once('exit', resolve))
  app.child.kill('SIGKILL')
  await exited
}

/** An API call of a served process: the operation's name and its parameters, answered with its body. */
type Call = <T>(name: string, params?: Record<string, unknown>) => Promise<T>

/**
 * Creates an instance through `call`, links it to the sandbox account `me` by its QR code, points its webhook at
 * `webhookUrl` (when given) and waits until it is connected; answers its id.
 */
export async function linkServedInstance(
  call: Call,
  sandbox: OutsideSandbox,
  me: string,
  webhookUrl?: string,
): Promise<string> {
  const { instance_id: instanceId } = await call<{ instance_id: string }>('create_instance')
  const { base64 } = await call<{ base64: string }>('generate_qrcode', { instance_id: instanceId })
  await sandbox.link(decodeQr(base64), me)
  if (webhookUrl)
    await call('set_webhook', { instance_id: instanceId, webhook_url: webhookUrl, enable: true })
  await waitFor(
    async () => {
      const { instance } = await call<{ instance: { state: string } }>('instance', {
        instance_id: instanceId,
      })
      return instance.state === 'connected'
    },
    60_000,
    'the instance connected',
  )
  return instanceId
}

/** Per network message id, the ids of the `message.received` events in the instance's event log, every page. */
export async function loggedReceivedEvents(call: Call, instanceId: string): Promise<Map<string, string[]>> {
  const byMessage = new Map<string, string[]>()
  let cursor: string | null = null
  do {
    const page: {
      events: Array<{ event_id: string; data: { id: string } }>
      next_cursor: string | null
    } = await call('events', {
      instance_id: instanceId,
      event: 'message.received',
      limit: 500,
      ...(cursor ? { cursor } : {}),
    })
    for (const { event_id, data } of page.events)
      byMessage.set(data.id, [...(byMessage.get(data.id) ?? []), event_id])
    cursor = page.next_cursor
  } while (cursor)
  return byMessage
}
