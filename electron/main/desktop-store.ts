import Store from 'electron-store'
import { DEFAULT_PORT } from '../core/config'
import type { WindowState } from './window-state'

/** The desktop shell's own settings, kept apart from the core's `config.json` in the same folder. */
interface DesktopSettings {
  /** Where the API listens from the next launch on. */
  port: number
  /** As last closed; read back through restoreWindowState. */
  window?: WindowState
}

export type DesktopStore = Store<DesktopSettings>

export function openDesktopStore(): DesktopStore {
  return new Store<DesktopSettings>({
    name: 'desktop',
    defaults: { port: DEFAULT_PORT },
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: true,
  })
}
