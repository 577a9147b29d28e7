import { contextBridge, ipcRenderer } from 'electron'
import type { LinkdeskBridge } from '../../renderer/src/desktop-bridge'
import { BRIDGE_CHANNELS, type BridgeBootstrap } from '../main/bridge-channels'

// Asked synchronously so the values exist before the page's scripts run; null for pages not of the app.
const bootstrap = ipcRenderer.sendSync(BRIDGE_CHANNELS.bootstrap) as BridgeBootstrap | null

if (bootstrap) {
  const bridge: LinkdeskBridge = {
    apiBase: bootstrap.apiBase,
    uiToken: bootstrap.uiToken,
    version: bootstrap.version,
    platform: bootstrap.platform,
    revealDataFolder: () => ipcRenderer.invoke(BRIDGE_CHANNELS.revealDataFolder),
    openLogFile: () => ipcRenderer.invoke(BRIDGE_CHANNELS.openLogFile),
    getStartOnLogin: () => ipcRenderer.invoke(BRIDGE_CHANNELS.getStartOnLogin),
    setStartOnLogin: (enabled) => ipcRenderer.invoke(BRIDGE_CHANNELS.setStartOnLogin, enabled === true),
    getPort: () => ipcRenderer.invoke(BRIDGE_CHANNELS.getPort),
    setPort: (port) => ipcRenderer.invoke(BRIDGE_CHANNELS.setPort, port),
  }
  contextBridge.exposeInMainWorld('linkdesk', bridge)
}
