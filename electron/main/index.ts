import {
  BrowserWindow,
  Notification,
  app,
  dialog,
  ipcMain,
  safeStorage,
  screen,
  session,
  shell,
} from 'electron'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Core, logUnhandledRejections } from '../core'
import { openRotatingLogFile } from '../core/logger'
import { registerDesktopBridge, type StartOnLogin } from './desktop-bridge'
import { openDesktopStore } from './desktop-store'
import { safeStorageCipher } from './safe-storage-cipher'
import { startDesktopCore } from './start-core'
import { type InstanceNotice, watchInstances } from './instance-tracker'
import { LinkdeskTray, trayIconPath } from './tray'
import { denyPermissions, enforceCsp, guardWebContents, secureWebPreferences } from './window-security'
import { MIN_WINDOW_SIZE, restoreWindowState } from './window-state'

const here = fileURLToPath(new URL('.', import.meta.url))
/** Built by electron-vite beside this file: out/main, out/preload, out/renderer. */
const PRELOAD = join(here, '../preload/index.cjs')
const UI_DIR = join(here, '../renderer')
/** Tray and window icons: copied next to the app when packaged, read from the repo otherwise. */
const RESOURCES = app.isPackaged ? process.resourcesPath : join(app.getAppPath(), 'resources')
/** `electron-vite dev` serves the renderer with hot reload; the API then comes through its proxy. */
const DEV_RENDERER_URL = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
const LOGIN_ITEM_PLATFORMS = new Set(['darwin', 'win32'])

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  void runDesktopApp()
}

async function runDesktopApp(): Promise<void> {
  await app.whenReady()
  const store = openDesktopStore()
  let core: Core
  const logFile = await openRotatingLogFile(join(app.getPath('userData'), 'logs'))
  try {
    core = await startDesktopCore({
      logFile,
      dataDir: app.getPath('userData'),
      port: store.get('port'),
      uiDir: UI_DIR,
      deps: { cipher: safeStorageCipher(safeStorage) },
      env: process.env,
      useFreePortInstead: async (port) => {
        const { response } = await dialog.showMessageBox({
          type: 'warning',
          message: `Port ${port} is already in use`,
          detail: 'Another program (or another Linkdesk) listens on it. Scripts expect the API on that port.',
          buttons: ['Use a free port this time', 'Quit'],
          defaultId: 0,
          cancelId: 1,
        })
        return response === 0
      },
    })
  } catch (error) {
    dialog.showErrorBox('Linkdesk could not start', (error as Error).message)
    app.exit(1)
    return
  }
  logUnhandledRejections(core.logger)

  const uiUrl = DEV_RENDERER_URL ?? `${core.url}/`
  const appOrigin = new URL(uiUrl).origin
  denyPermissions(session.defaultSession)
  if (!DEV_RENDERER_URL) enforceCsp(session.defaultSession, appOrigin)
  const openExternal = (url: string) => void shell.openExternal(url)
  let window: BrowserWindow | null = null

  const showWindow = (hash?: string) => {
    if (window) {
      if (hash) void window.loadURL(`${uiUrl.split('#')[0]}${hash}`)
      if (window.isMinimized()) window.restore()
      window.show()
      window.focus()
      return
    }
    const state = restoreWindowState(
      store.get('window'),
      screen.getAllDisplays().map((display) => display.workArea),
    )
    const created = new BrowserWindow({
      ...state,
      minWidth: MIN_WINDOW_SIZE.width,
      minHeight: MIN_WINDOW_SIZE.height,
      show: false,
      title: 'Linkdesk',
      icon: join(RESOURCES, 'icons', '256x256.png'),
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(PRELOAD),
    })
    guardWebContents(created.webContents, { appOrigin, openExternal })
    created.once('ready-to-show', () => {
      if (state.maximized) created.maximize()
      created.show()
    })
    created.on('close', () => {
      const bounds = created.getNormalBounds()
      store.set('window', { ...bounds, maximized: created.isMaximized() })
    })
    created.on('closed', () => (window = null))
    void created.loadURL(hash ? `${uiUrl.split('#')[0]}${hash}` : uiUrl)
    window = created
  }

  const startOnLogin = (): StartOnLogin => ({
    supported: LOGIN_ITEM_PLATFORMS.has(process.platform),
    enabled: LOGIN_ITEM_PLATFORMS.has(process.platform) && app.getLoginItemSettings().openAtLogin,
  })
  registerDesktopBridge(ipcMain, {
    appOrigin,
    bootstrap: {
      apiBase: DEV_RENDERER_URL ? `${appOrigin}/api/v1` : core.apiBase,
      uiToken: core.ui.value,
      version: app.getVersion(),
      platform: process.platform,
    },
    revealDataFolder: async () => {
      const problem = await shell.openPath(app.getPath('userData'))
      if (problem) throw new Error(problem)
    },
    openLogFile: async () => {
      const problem = await shell.openPath(logFile.current())
      if (problem) throw new Error(problem)
    },
    getStartOnLogin: startOnLogin,
    setStartOnLogin: (enabled) => {
      // Started at login, the app opens to the tray only: the API serves, the window waits to be asked for.
      if (startOnLogin().supported) app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] })
      return startOnLogin()
    },
    ports: () => ({ current: Number(new URL(core.url).port), saved: store.get('port') }),
    savePort: (port) => store.set('port', port),
  })

  const notify = (notice: InstanceNotice, hash?: string) => {
    if (!Notification.isSupported()) return
    const notification = new Notification({ title: notice.title, body: notice.body })
    notification.on('click', () => showWindow(hash))
    notification.show()
  }
  const tray = new LinkdeskTray(trayIconPath(RESOURCES), core.apiBase, {
    showWindow,
    openApiDocs: () => openExternal(`${core.apiBase}/docs`),
    reconnect: (instanceId) => {
      core.instances
        .reconnect(instanceId)
        .catch((error: Error) =>
          notify({ title: 'Reconnect failed', body: error.message }, `#/instances/${instanceId}`),
        )
    },
    quit: () => app.quit(),
  })
  const stopWatching = watchInstances(core, {
    onList: (instances) => tray.update(instances),
    onNotice: (instanceId, notice) => notify(notice, `#/instances/${instanceId}`),
  })

  app.on('second-instance', () => showWindow())
  app.on('activate', () => showWindow())
  // Closing the window keeps the API serving; quitting is done from the tray (or the app menu on macOS).
  app.on('window-all-closed', () => undefined)
  let stopped = false
  app.on('before-quit', (event) => {
    if (stopped) return
    event.preventDefault()
    stopWatching()
    tray.destroy()
    core.close().finally(() => {
      stopped = true
      app.quit()
    })
  })

  const openedAtLogin = process.argv.includes('--hidden') || app.getLoginItemSettings().wasOpenedAtLogin
  if (!openedAtLogin) showWindow()
}
