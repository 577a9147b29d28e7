import { Menu, type MenuItemConstructorOptions, Tray, nativeImage } from 'electron'
import { join } from 'node:path'
import { stateInWords, type TrayInstance } from './instance-watch'

export interface TrayActions {
  showWindow(hash?: string): void
  openApiDocs(): void
  reconnect(instanceId: string): void
  quit(): void
}

/** The tray image: a template image on macOS (tinted by the system), the coloured logo elsewhere. */
export function trayIconPath(resourcesDir: string, platform = process.platform): string {
  return join(resourcesDir, 'tray', platform === 'darwin' ? 'trayTemplate.png' : 'tray.png')
}

function instanceItem(instance: TrayInstance, actions: TrayActions): MenuItemConstructorOptions {
  const detail = `#/instances/${encodeURIComponent(instance.id)}`
  const quick: MenuItemConstructorOptions[] = [{ label: 'Open', click: () => actions.showWindow(detail) }]
  if (instance.linked && instance.state !== 'connected' && instance.state !== 'connecting') {
    quick.push({ label: 'Reconnect now', click: () => actions.reconnect(instance.id) })
  }
  if (!instance.linked && instance.state !== 'qr') {
    quick.push({ label: 'Link an account…', click: () => actions.showWindow(`${detail}/link`) })
  }
  return { label: `${instance.label} — ${stateInWords(instance.state)}`, submenu: quick }
}

function menuFor(instances: readonly TrayInstance[], actions: TrayActions): Menu {
  const listed: MenuItemConstructorOptions[] =
    instances.length === 0
      ? [{ label: 'No instances yet', enabled: false }]
      : instances.map((instance) => instanceItem(instance, actions))
  return Menu.buildFromTemplate([
    { label: 'Show Linkdesk', click: () => actions.showWindow() },
    { type: 'separator' },
    ...listed,
    { type: 'separator' },
    { label: 'Open API docs', click: actions.openApiDocs },
    { label: 'Quit Linkdesk', click: actions.quit },
  ])
}

/** The tray icon that keeps Linkdesk reachable while its window is closed and the API keeps serving. */
export class LinkdeskTray {
  private readonly tray: Tray

  constructor(
    iconPath: string,
    apiBase: string,
    private readonly actions: TrayActions,
  ) {
    this.tray = new Tray(nativeImage.createFromPath(iconPath))
    this.tray.setToolTip(`Linkdesk: API at ${apiBase}`)
    this.tray.on('click', () => actions.showWindow())
    this.update([])
  }

  /** Shows each instance with its state and quick actions. */
  update(instances: readonly TrayInstance[]): void {
    this.tray.setContextMenu(menuFor(instances, this.actions))
  }

  destroy(): void {
    this.tray.destroy()
  }
}
