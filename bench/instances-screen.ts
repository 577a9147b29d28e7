// The Instances screen with many instances: starts the headless server (sandbox mode), creates BENCH_INSTANCES
// (500) named instances through the API, links BENCH_LINKED (10) of them with simulated phones, and times in
// Chromium (playwright-core) how long the screen takes, from the action to the result on screen: the screen
// opened (cards), the table shown, a search typed, a state filter chosen. Median and p95 over BENCH_ROUNDS (10)
// rounds each. `npm run bench:instances-screen`.
import { seriousViolations } from '../renderer/e2e/axe'
import { launchBrowser } from '../renderer/e2e/browser'
import { startHeadlessServer } from '../renderer/e2e/headless-server'
import { ensureRendererBuilt } from '../renderer/e2e/renderer-build'
import { windowSessionHeaders } from '../renderer/e2e/window-session'
import { loadAverage } from './harness/proc'
import { machineLine } from './harness/results'
import { percentile } from './harness/stats'

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 500)
const LINKED = Number(process.env.BENCH_LINKED ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)

async function main(): Promise<void> {
  const loadBefore = loadAverage()
  await ensureRendererBuilt()
  const server = await startHeadlessServer(['--sandbox'])
  const browser = await launchBrowser()
  try {
    const page = await browser.context.newPage()
    await page.goto(server.loginUrl)
    await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor()
    const call = async (operation: string, params: Record<string, unknown>) => {
      const answer = await fetch(`${server.apiBase}/${operation}`, {
        method: 'POST',
        headers: {
          ...(await windowSessionHeaders(browser.context, server.apiBase)),
          'content-type': 'application/json',
        },
        body: JSON.stringify(params),
      })
      const body = (await answer.json()) as { instance_id: string }
      if (answer.status !== 200) throw new Error(`${operation}: ${JSON.stringify(body)}`)
      return body
    }
    const ids: string[] = []
    for (let start = 0; start < INSTANCES; start += 25) {
      const batch = Array.from({ length: Math.min(25, INSTANCES - start) }, (_, offset) =>
        call('create_instance', { name: `Shop ${String(start + offset).padStart(3, '0')}` }),
      )
      ids.push(...(await Promise.all(batch)).map((created) => created.instance_id))
    }
    for (let n = 0; n < LINKED; n++)
      await call('sandbox_scan', { instance_id: ids[n], phone: `1555009${String(n).padStart(4, '0')}` })

    // Every linked one is shown connected before anything is timed.
    await page
      .getByLabel('Instances by state')
      .filter({ hasText: `${INSTANCES} instances: ${LINKED} connected · ${INSTANCES - LINKED} need a scan` })
      .waitFor({ timeout: 120_000 })
    const status = page.getByRole('status').filter({ hasText: /^Showing / })
    const timed = async (act: () => Promise<void>, shown: string, reset?: () => Promise<void>) => {
      const times: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        await reset?.()
        const started = performance.now()
        await act()
        await status.filter({ hasText: shown }).waitFor()
        times.push(performance.now() - started)
      }
      return `${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)}`
    }
    const view = (name: 'Cards' | 'Table') =>
      page.getByRole('group', { name: 'View' }).getByRole('button', { name }).click()
    const search = page.getByLabel('Search by name, number or id')
    const state = page.getByLabel('State', { exact: true })
    const all = `Showing all ${INSTANCES}`

    await view('Cards')
    const open = await timed(
      () => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Instances' }).click(),
      all,
      async () => {
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click()
        await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
      },
    )
    const table = await timed(
      () => view('Table'),
      all,
      async () => {
        await view('Cards')
        await page.locator('.cards').waitFor()
      },
    )
    await page.getByRole('table', { name: 'Instances' }).waitFor()
    const searched = await timed(
      () => search.fill('shop 123'),
      `Showing 1 of ${INSTANCES}`,
      () => search.fill(''),
    )
    await search.fill('')
    const filtered = await timed(
      () => state.selectOption({ label: 'Connected' }).then(() => undefined),
      `Showing ${LINKED} of ${INSTANCES}`,
      () => state.selectOption({ label: 'All states' }).then(() => undefined),
    )
    const violations = await seriousViolations(page)
    const out = [
      `### Instances screen: ${INSTANCES} instances (${LINKED} connected), Chromium, ms from the action to the result on screen`,
      '',
      '| action | median ms | p95 ms |',
      '|---|---|---|',
      `| open the screen (cards, first 60 of ${INSTANCES}) | ${open} |`,
      `| show the table (all ${INSTANCES} rows) | ${table} |`,
      `| search "shop 123" in the table | ${searched} |`,
      `| filter the table to Connected | ${filtered} |`,
      '',
      `${ROUNDS} rounds each; serious axe violations on the table: ${violations.length}.`,
      '',
      machineLine(loadBefore, loadAverage()),
    ]
    process.stdout.write(`${out.join('\n')}\n`)
  } finally {
    await browser.close()
    await server.stop()
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${(error as Error).stack}\n`)
    process.exit(1)
  },
)
