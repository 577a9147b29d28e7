import type { BrowserContext } from 'playwright-core'

/** The headers that carry the window's own session (its HttpOnly cookie), to call the API beside the window. */
export async function windowSessionHeaders(
  context: BrowserContext,
  apiBase: string,
): Promise<Record<string, string>> {
  const cookies = await context.cookies(apiBase)
  const session = cookies.find((cookie) => cookie.name === 'linkdesk_session')
  return { cookie: `linkdesk_session=${session?.value ?? ''}` }
}
