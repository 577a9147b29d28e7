import { Menu, Tray, nativeImage } from 'electron'
import { join } from 'node:path'

export interface TrayActions {
  showWindow(): void
  openApiDocs(): void
  quit(): void
}

/** The tray image: a template image on macOS (tinted by the system), the coloured logo elsewhere. */
export function trayIconPath(resourcesDir: string, platform = process.platform): string {
  return join(resourcesDir, 'tray', platform === 'darwin' ? 'trayTemplate.png' : 'tray.png')
}

/** The tray icon that keeps Linkdesk reachable while its window is closed and the API keeps serving. */
export function createTray(iconPath: string, apiBase: string, actions: TrayActions): Tray {
  const tray = new Tray(nativeImage.createFromPath(iconPath))
  tray.setToolTip(`Linkdesk: API at ${apiBase}`)
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Show Linkdesk', click: actions.showWindow },
      { label: 'Open API docs', click: actions.openApiDocs },
      { type: 'separator' },
      { label: 'Quit Linkdesk', click: actions.quit },
    ]),
  )
  tray.on('click', actions.showWindow)
  return tray
}
