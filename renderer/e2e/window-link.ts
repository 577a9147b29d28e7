import type { Page } from 'playwright-core'

/** Who the simulated phone is: a chosen number and account name, or the sandbox's next number. */
interface SandboxPhone {
  phone?: string
  name?: string
}

/** On the link page the window shows, a sandbox phone scans the QR code ("Scan with a sandbox phone"). */
export async function scanWithSandboxPhone(page: Page, { phone, name }: SandboxPhone = {}): Promise<void> {
  const scan = page.getByRole('form', { name: 'Sandbox: scan with a simulated phone' })
  if (phone) await scan.getByLabel('Phone number').fill(phone)
  if (name) await scan.getByLabel('Account name').fill(name)
  await scan.getByRole('button', { name: 'Scan with a sandbox phone' }).click()
}

/** From the Instances screen: creates an instance, waits for its QR code, and links it with a sandbox phone. */
export async function createAndScan(page: Page, phone: SandboxPhone = {}): Promise<void> {
  await page.getByRole('button', { name: 'Create instance' }).click()
  await page.getByRole('img', { name: /^QR code number \d+ to link an account$/ }).waitFor()
  await scanWithSandboxPhone(page, phone)
}

/** On a linking instance's page: waits until it is connected; answers the number its heading names. */
export async function connectedNumber(page: Page): Promise<string> {
  const heading = page.getByRole('heading', { level: 1, name: /\(\+\d+\)/ })
  await heading.waitFor()
  const phone = /\(\+(\d+)\)/.exec(await heading.innerText())?.[1]
  if (!phone) throw new Error(`the instance's heading names no number: ${await heading.innerText()}`)
  await page.locator('.badge', { hasText: 'Connected' }).waitFor()
  return phone
}

/** Creates an instance and links it with the sandbox's next phone; answers the number the sandbox gave it. */
export async function linkInWindow(page: Page): Promise<string> {
  await createAndScan(page)
  return connectedNumber(page)
}
