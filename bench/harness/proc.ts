import { readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100

/** CPU seconds (user + system) a process has used so far, from /proc (10 ms resolution). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND
}

/** The 1-minute load average. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])
}
