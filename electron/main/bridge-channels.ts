/** IPC channels between the preload's named helpers and the main process; nothing else is listened to. */
export const BRIDGE_CHANNELS = {
  bootstrap: 'linkdesk:bootstrap',
  revealDataFolder: 'linkdesk:reveal-data-folder',
  openLogFile: 'linkdesk:open-log-file',
  getStartOnLogin: 'linkdesk:get-start-on-login',
  setStartOnLogin: 'linkdesk:set-start-on-login',
  getPort: 'linkdesk:get-port',
  setPort: 'linkdesk:set-port',
} as const

/** What the preload receives synchronously before the page runs. */
export interface BridgeBootstrap {
  apiBase: string
  uiToken: string
  version: string
  platform: string
}
