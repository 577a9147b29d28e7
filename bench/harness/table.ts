import type { Spread } from './stats'

/** A markdown table with the header row and right-padded cells, readable as plain text too. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n')
}

/** `median (min–max)` with `digits` decimals. */
export function formatSpread(value: Spread, digits = 0): string {
  if (Number.isNaN(value.median)) return 'n/a'
  const f = (n: number) => n.toFixed(digits)
  return value.rounds > 1
    ? `**${f(value.median)}** (${f(value.min)}–${f(value.max)})`
    : `**${f(value.median)}**`
}

/** ✅ or ❌ with the comparison spelled out. */
export function verdict(met: boolean, detail: string): string {
  return `${met ? 'met' : 'MISSED'}: ${detail}`
}
