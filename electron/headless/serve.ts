import { fileURLToPath } from 'node:url'
import { APP_VERSION, createCore, logUnhandledRejections } from '../core'
import { parseConfig } from '../core/config'
import { SERVE_COMMAND } from './cli-options'
import { settingsOrExit } from './command-line'

const uiDir = fileURLToPath(new URL('../../renderer/dist', import.meta.url))

async function main(): Promise<void> {
  const config = settingsOrExit(SERVE_COMMAND, APP_VERSION, (input) => parseConfig({ ...input, uiDir }))
  const core = await createCore(config)
  logUnhandledRejections(core.logger)
  process.stdout.write(`Linkdesk is running.\napi: ${core.apiBase}\nui-login: ${core.createLoginUrl()}\n`)

  const stop = (signal: string) => {
    core.logger.info({ signal }, 'shutting down')
    core.close().then(
      () => process.exit(0),
      (error: unknown) => {
        core.logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}

main().catch((error: unknown) => {
  process.stderr.write(`linkdesk: could not start: ${(error as Error).message}\n`)
  process.exit(1)
})
