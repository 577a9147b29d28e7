// pino-roll ships no type definitions: the part of its API the log file uses. It answers a SonicBoom stream.
declare module 'pino-roll' {
  import type { EventEmitter } from 'node:events'

  interface PinoRollOptions {
    file: string
    size?: string | number
    extension?: string
    limit?: { count?: number }
    mkdir?: boolean
  }

  interface RollingStream extends EventEmitter {
    write(line: string): boolean
    end(): void
  }

  export default function roll(options: PinoRollOptions): Promise<RollingStream>
}
