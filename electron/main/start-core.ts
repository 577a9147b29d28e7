import { type Core, type CoreDeps, createCore } from '../core'
import { parseConfig } from '../core/config'
import { alsoToFile, createLogger, type RotatingLogFile } from '../core/logger'

export interface DesktopCoreOptions {
  dataDir: string
  port: number
  uiDir: string
  deps: CoreDeps
  env: NodeJS.ProcessEnv
  /** The log file the core writes beside stderr. */
  logFile: RotatingLogFile
  /** Asked when the saved port is taken; true starts on a free port for this launch. */
  useFreePortInstead(port: number): Promise<boolean>
}

function portTaken(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE'
}

/** Starts the core for the desktop app; a taken port offers a free one instead of failing to start. */
export async function startDesktopCore(options: DesktopCoreOptions): Promise<Core> {
  const configFor = (port: number) =>
    parseConfig(
      {
        dataDir: options.dataDir,
        port,
        uiDir: options.uiDir,
        accessToken: options.env.LINKDESK_ACCESS_TOKEN || undefined,
        logLevel: options.env.LINKDESK_LOG_LEVEL,
      },
      options.env,
    )
  const config = configFor(options.port)
  const deps = { ...options.deps, logger: createLogger(config.logLevel, alsoToFile(options.logFile)) }
  try {
    return await createCore(config, deps)
  } catch (error) {
    if (!portTaken(error) || !(await options.useFreePortInstead(options.port))) throw error
    return createCore(configFor(0), deps)
  }
}
