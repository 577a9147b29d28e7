import { readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100

/** CPU seconds (user + system) a process has used so far, from /proc (10 ms resolution). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
}

/** A `<field>: N kB` line of /proc/<pid>/status, in MB. */
function statusMb(pid: number, field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) / 1024 : NaN
}

/** Resident set size of a process in MB (VmRSS). */
export function rssMb(pid: number): number {
  return statusMb(pid, 'VmRSS')
}

/** The resident set split: anonymous memory (heaps, buffers) and file-backed pages (code, memory-mapped files). */
export function rssSplitMb(pid: number): { anon: number; file: number } {
  return { anon: statusMb(pid, 'RssAnon'), file: statusMb(pid, 'RssFile') }
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
}
