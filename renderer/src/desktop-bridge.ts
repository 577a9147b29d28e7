/**
 * What the Electron preload hands the window as `window.linkdesk`: where the API is, the per-launch UI
 * credential, and a few native helpers. In a browser it is absent. The preload type-checks against this.
 */
export interface LinkdeskBridge {
  readonly apiBase: string
  readonly uiToken: string
  readonly version: string
  readonly platform: string
  /** Opens the data folder (settings, credentials, logs) in the system's file manager. */
  revealDataFolder(): Promise<void>
  /** Opens the log file the app writes now (`logs/linkdesk.<n>.log` in the data folder, rolled over at 10 MB). */
  openLogFile(): Promise<void>
  /** Whether the OS starts Linkdesk at login; `supported` is false where Electron cannot set it (Linux). */
  getStartOnLogin(): Promise<{ supported: boolean; enabled: boolean }>
  setStartOnLogin(enabled: boolean): Promise<{ supported: boolean; enabled: boolean }>
  /** The port the API listens on now, and the one saved for the next launch. */
  getPort(): Promise<{ current: number; saved: number }>
  /** Saves the port for the next launch; answers the saved settings. */
  setPort(port: number): Promise<{ current: number; saved: number }>
}

declare global {
  interface Window {
    linkdesk?: LinkdeskBridge
  }
}

/** The desktop bridge when running in the Electron window, undefined in a browser. */
export function desktopBridge(): LinkdeskBridge | undefined {
  return window.linkdesk
}
