import { type Core, type CoreDeps, createCore } from '../core'
import { parseConfig } from '../core/config'

export interface DesktopCoreOptions {
  dataDir: string
  port: number
  uiDir: string
  deps: CoreDeps
  env: NodeJS.ProcessEnv
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
  try {
    return await createCore(configFor(options.port), options.deps)
  } catch (error) {
    if (!portTaken(error) || !(await options.useFreePortInstead(options.port))) throw error
    return createCore(configFor(0), options.deps)
  }
}
