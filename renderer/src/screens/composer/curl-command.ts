/** The same request as a curl command a script writer can paste; the token stays a shell variable. */
export function curlCommand(apiBase: string, operation: string, params: Record<string, unknown>): string {
  const body = JSON.stringify({ access_token: '$LINKDESK_TOKEN', ...params })
  // Single quotes keep the shell from expanding the JSON; the token is spliced in outside them.
  const quoted = `'${body.replace(/'/g, `'\\''`).replace('"$LINKDESK_TOKEN"', () => `"'"$LINKDESK_TOKEN"'"`)}'`
  return `curl -s -X POST '${apiBase}/${operation}' \\\n  -H 'Content-Type: application/json' \\\n  -d ${quoted}`
}

/** Uploading a local file as the window does, keeping the address it answers in $MEDIA_URL. */
export function curlUpload(apiBase: string, fileName: string): string {
  const path = `'${fileName.replace(/'/g, `'\\''`)}'`
  return (
    `MEDIA_URL=$(curl -s -X POST '${apiBase}/uploads' \\\n  -H "Authorization: Bearer $LINKDESK_TOKEN" \\\n` +
    `  -H 'Content-Type: application/octet-stream' --data-binary @${path} | jq -r .url)`
  )
}
