import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'
import { missingServer } from '../../electron/core/testing/system-server'

/** Debian's Chromium; Playwright cannot download its own browsers on these machines. */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/**
 * Why the browser tests cannot run here, or false when they can. Under CI a missing Chromium is a failure of
 * every file that imports this (.ci/run installs it), never a skip.
 */
export const chromiumMissing = existsSync(CHROMIUM_PATH)
  ? false
  : missingServer(`${CHROMIUM_PATH} is not installed (apt-get install chromium)`)

export interface TestBrowser {
  context: BrowserContext
  close(): Promise<void>
}

/** A headless Chromium with a fresh profile, closed and removed by `close()`. */
export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'linkdesk-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
