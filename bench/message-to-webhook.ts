// Incoming message → webhook: a sandbox contact sends texts to a linked instance of the app (its own process,
// against the outside sandbox), and a receiver process measures the time from the contact's send to the
// message.received webhook. Run alone with `npx tsx bench/message-to-webhook.ts`.
import { linkAppInstance, startApp } from './harness/app'
import { isEntry, runMain, type Figure } from './harness/figure'
import { sleep, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { ReceiverProcess, wallClock } from './webhook-delivery'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const RATES = [100, 500, 1_000]
/** Sends in flight to the sandbox's control API at most; beyond, the pacing waits. */
const IN_FLIGHT = 64

interface Phase {
  perSecond: number
  p50: number
  p99: number
}

/** The contact sends `rate` texts a second for SECONDS; answers the webhook figures. */
async function pacedMessages(
  send: (text: string) => Promise<unknown>,
  receiver: ReceiverProcess,
  rate: number,
): Promise<Phase> {
  const total = rate * SECONDS
  const started = performance.now()
  let sent = 0
  let inFlight = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate))
    while (sent < due && inFlight < IN_FLIGHT) {
      inFlight++
      void send(`bench:${wallClock()} #${sent++}`).finally(() => inFlight--)
    }
    await sleep(1)
  }
  const report = await receiver.collect(total)
  const sorted = [...report.latencies].sort((a, b) => a - b)
  return {
    perSecond: total / ((performance.now() - started) / 1000),
    p50: sorted[Math.floor(sorted.length * 0.5)] ?? NaN,
    p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN,
  }
}

export const messageToWebhookFigure: Figure = async ({ sandbox, rounds, phone }) => {
  const app = await startApp(sandbox.controlUrl)
  const receiver = await ReceiverProcess.start()
  const results = new Map<number, Phase[]>()
  try {
    const [appPhone, contact] = [phone(), phone()]
    await sandbox.addContact(contact)
    const { instanceId } = await linkAppInstance(app, (qr, to) => sandbox.link(qr, to), appPhone)
    await app.call('set_webhook', { instance_id: instanceId, webhook_url: receiver.url, enable: true })
    const send = (text: string) => sandbox.send(contact, appPhone, text)
    await pacedMessages(send, receiver, 50)
    for (let round = 0; round < rounds; round++) {
      for (const rate of RATES)
        results.set(rate, [...(results.get(rate) ?? []), await pacedMessages(send, receiver, rate)])
    }
  } finally {
    await app.stop()
    receiver.stop()
  }
  const pick = (rate: number, field: keyof Phase) =>
    spread((results.get(rate) ?? []).map((phase) => phase[field]))
  const rows = RATES.map((rate) => [
    `${rate}/s for ${SECONDS} s`,
    formatSpread(pick(rate, 'perSecond')),
    formatSpread(pick(rate, 'p50'), 1),
    formatSpread(pick(rate, 'p99'), 1),
  ])
  const top = RATES.at(-1) ?? 0
  const topRate = pick(top, 'perSecond').median
  const topP99 = pick(top, 'p99').median
  return [
    `## Incoming message → webhook: a sandbox contact's texts to a linked instance, ${rounds} rounds`,
    '',
    markdownTable(['contact sends', 'webhooks/s', 'p50 ms', 'p99 ms'], rows),
    '',
    `- At ${top}/s: ${verdict(topRate >= 0.95 * top, `${topRate.toFixed(0)} message.received webhooks/s`)} ` +
      `(target ≥ 1,000/s); p99 ${verdict(topP99 <= 50, `${topP99.toFixed(1)} ms`)} (target ≤ 50 ms).`,
    '',
    'Latency: from the bench calling the sandbox control API (`POST /accounts/{phone}/messages`) to the webhook ' +
      'request arriving at a receiver in its own process (wall clocks of one machine). It includes the sandbox ' +
      'encrypting and relaying, Baileys decrypting in the app, the message store and the durable outbox.',
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('message-to-webhook', messageToWebhookFigure)
