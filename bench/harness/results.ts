import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'

export const RESULTS_PATH = fileURLToPath(new URL('../results.md', import.meta.url))

const HEADER = `# Linkdesk benchmarks: the app beside raw Baileys

Run with \`npm run bench\`, or one figure at a time: \`npm run bench:send\`, \`bench:send-profile\`, \`bench:receive\`,
\`bench:memory\`, \`bench:start\`, \`bench:link\`.

Each figure runs both sides in one run, alternating which side goes first, against the same outside sandbox
process: \`packages/sandbox/src/cli.ts\`, as \`npm run sandbox -- --port 0\` runs it.

* **The app** runs as its own process: \`npm run serve -- --sandbox-url <control> --send-interval-ms 0\`.
  It is started through \`bench/harness/app-launcher.ts\`, which adds GC-and-report on SIGUSR2 and changes no
  product code.
* **Raw Baileys 7.0.0-rc14** runs in its own process, \`bench/raw/raw-worker.ts\`, with in-memory keys and the
  app's socket options.

Figures are the **median** (min–max) over the rounds. Only 127.0.0.1 is used.
`

/** Replaces (or appends) the section `name` of bench/results.md, keeping the others. */
export function writeSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name} -->`
  const end = `<!-- /bench:${name} -->`
  let text = existsSync(RESULTS_PATH) ? readFileSync(RESULTS_PATH, 'utf8') : `${HEADER}\n`
  const block = `${start}\n${markdown.trim()}\n${end}`
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  text =
    from >= 0 && to > from
      ? text.slice(0, from) + block + text.slice(to + end.length)
      : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(RESULTS_PATH, text)
}

/** One line on when and where a figure was measured. */
export function machineLine(loadBefore: number, loadAfter: number): string {
  const gib = Math.round(totalmem() / 2 ** 30)
  return (
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on a shared VM: 2 vCPUs, ${gib} GiB, ` +
    `Node ${process.version}; 1-min load ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after.`
  )
}
