// Link: create → QR → the sandbox phone scans → connected, the app over HTTP beside a raw Baileys socket.
import { linkAppInstance, startApp } from './harness/app'
import { isEntry, metOrMissed, runMain, type Figure } from './harness/figure'
import { median, spread } from './harness/stats'
import { formatSpread, markdownTable, verdict } from './harness/table'
import { RawProcess } from './raw/raw-client'

const PER_ROUND = Number(process.env.BENCH_LINKS ?? 5)

export const linkFigure: Figure = async ({ sandbox, rounds, phone, target }) => {
  const app = await startApp(sandbox.controlUrl)
  const raw = await RawProcess.start(sandbox.wsUrl, sandbox.rootKeyHex)
  const link = (qr: string, phoneNumber: string) => sandbox.link(qr, phoneNumber)
  const perRound = {
    app: { qr: [] as number[], scan: [] as number[], total: [] as number[] },
    raw: { qr: [] as number[], scan: [] as number[], total: [] as number[] },
  }
  try {
    // One link each first: JIT and connection warm-up, not measured.
    await linkAppInstance(app, link, phone())
    await raw.link(link, phone())
    for (let round = 0; round < rounds; round++) {
      const sides = round % 2 === 0 ? (['app', 'raw'] as const) : (['raw', 'app'] as const)
      for (const side of sides) {
        const times = []
        for (let i = 0; i < PER_ROUND; i++) {
          times.push(
            side === 'app'
              ? (await linkAppInstance(app, link, phone())).times
              : await raw.link(link, phone()),
          )
        }
        perRound[side].qr.push(median(times.map((t) => t.qrMs)))
        perRound[side].scan.push(median(times.map((t) => t.scanToOpenMs)))
        perRound[side].total.push(median(times.map((t) => t.totalMs)))
      }
    }
  } finally {
    await Promise.all([app.stop(), raw.stop()])
  }
  const s = (values: number[]) => formatSpread(spread(values), 1)
  const appTotal = spread(perRound.app.total).median
  const rawTotal = spread(perRound.raw.total).median
  target({
    figure: 'link: create → QR → scan → connected',
    app: `${appTotal.toFixed(0)} ms`,
    beside: `raw ${rawTotal.toFixed(0)} ms`,
    target: `≤ raw + 100 ms: ${metOrMissed(appTotal <= rawTotal + 100)}`,
  })
  return [
    `## Link: create → QR → scan → connected (ms; median per round of ${PER_ROUND} links, ${rounds} rounds)`,
    '',
    markdownTable(
      ['side', 'create → first QR', 'scan → connected', 'total (QR decode excluded)'],
      [
        [
          'app: create_instance, generate_qrcode, sandbox link, poll `instance`',
          s(perRound.app.qr),
          s(perRound.app.scan),
          s(perRound.app.total),
        ],
        [
          'raw: makeWASocket, qr event, sandbox link, `open`',
          s(perRound.raw.qr),
          s(perRound.raw.scan),
          s(perRound.raw.total),
        ],
      ],
    ),
    '',
    `Target ≤ raw + 100 ms: ${verdict(appTotal <= rawTotal + 100, `app ${appTotal.toFixed(1)} ms vs raw ${rawTotal.toFixed(1)} ms (+${(appTotal - rawTotal).toFixed(1)} ms)`)}.`,
    'The app side is observed by polling `instance` every 2 ms over HTTP; the raw side by its `connection: open` event over IPC.',
  ].join('\n')
}

if (isEntry(import.meta.url)) runMain('link', linkFigure)
