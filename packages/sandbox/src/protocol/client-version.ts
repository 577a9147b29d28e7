/**
 * WhatsApp Web's version document (`sw.js` on web.whatsapp.com) carries the current client revision as
 * `"client_revision":N` inside an escaped JSON string. The sandbox serves one of that shape; clients read it.
 */
export function clientVersionDocument(revision: number): string {
  const data = JSON.stringify({ dynamic_data: { SiteData: { client_revision: revision } } })
  return `self.__swData=JSON.parse(${JSON.stringify(data)});\n`
}

/** The client revision a version document states (quotes escaped or not); undefined when it states none. */
export function parseClientRevision(text: string): number | undefined {
  const match = /\\?"client_revision\\?":\s*(\d{1,15})/.exec(text)
  return match?.[1] ? Number(match[1]) : undefined
}
