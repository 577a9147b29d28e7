import type { IpcMain, IpcMainEvent, IpcMainInvokeEvent } from 'electron'
import { BRIDGE_CHANNELS, type BridgeBootstrap } from './bridge-channels'
import { isAppUrl } from './window-security'

export interface StartOnLogin {
  supported: boolean
  enabled: boolean
}

/** What the bridge's helpers do, supplied by the main process. */
export interface BridgeHandlers {
  /** Origin of the pages allowed to use the bridge: the window's own. */
  appOrigin: string
  bootstrap: BridgeBootstrap
  revealDataFolder(): Promise<void>
  /** Opens the log file written now in the system's viewer for it. */
  openLogFile(): Promise<void>
  getStartOnLogin(): StartOnLogin
  setStartOnLogin(enabled: boolean): StartOnLogin
  ports(): { current: number; saved: number }
  savePort(port: number): void
}

function fromApp(event: IpcMainEvent | IpcMainInvokeEvent, appOrigin: string): boolean {
  const url = event.senderFrame?.url
  return url !== undefined && isAppUrl(url, appOrigin)
}

/** Answers the preload's named helpers, and only for pages of the app itself. */
export function registerDesktopBridge(ipc: IpcMain, handlers: BridgeHandlers): void {
  const { appOrigin } = handlers
  ipc.on(BRIDGE_CHANNELS.bootstrap, (event) => {
    event.returnValue = fromApp(event, appOrigin) ? handlers.bootstrap : null
  })
  const handle = (channel: string, run: (argument: unknown) => unknown) => {
    ipc.handle(channel, (event, argument: unknown) => {
      if (!fromApp(event, appOrigin)) throw new Error('Only the Linkdesk window may use this.')
      return run(argument)
    })
  }
  handle(BRIDGE_CHANNELS.revealDataFolder, () => handlers.revealDataFolder())
  handle(BRIDGE_CHANNELS.openLogFile, () => handlers.openLogFile())
  handle(BRIDGE_CHANNELS.getStartOnLogin, () => handlers.getStartOnLogin())
  handle(BRIDGE_CHANNELS.setStartOnLogin, (enabled) => handlers.setStartOnLogin(enabled === true))
  handle(BRIDGE_CHANNELS.getPort, () => handlers.ports())
  handle(BRIDGE_CHANNELS.setPort, (port) => {
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new Error('The port must be a whole number from 1 to 65535.')
    }
    handlers.savePort(port)
    return handlers.ports()
  })
}
