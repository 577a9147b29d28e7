import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { REPO_ROOT } from './headless-server'

/**
 * Where the run saves its screenshots: an ignored folder by default, so a test run changes no tracked file;
 * the README's committed set in docs/screenshots only when LINKDESK_UPDATE_SCREENSHOTS=1.
 */
export const SCREENSHOT_DIR =
  process.env.LINKDESK_UPDATE_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : join(REPO_ROOT, 'test-results', 'screenshots')

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true })
}
