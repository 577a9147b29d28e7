/** The variable the curl commands read the token from: the one the server itself reads at start. */
export const TOKEN_VARIABLE = 'LINKDESK_ACCESS_TOKEN'

/** The same request as a curl command a script writer can paste; the token stays a shell variable. */
export function curlCommand(apiBase: string, operation: string, params: Record<string, unknown>): string {
  const body = JSON.stringify({ access_token: `$${TOKEN_VARIABLE}`, ...params })
  // Single quotes keep the shell from expanding the JSON; the token is spliced in outside them.
  const quoted = `'${body
    .replace(/'/g, `'\\''`)
    .replace(`"$${TOKEN_VARIABLE}"`, () => `"'"$${TOKEN_VARIABLE}"'"`)}'`
  return `curl -s -X POST '${apiBase}/${operation}' \\\n  -H 'Content-Type: application/json' \\\n  -d ${quoted}`
}

/** Uploading a local file as the window does, keeping the address it answers in $MEDIA_URL. */
export function curlUpload(apiBase: string, fileName: string): string {
  const path = `'${fileName.replace(/'/g, `'\\''`)}'`
  return (
    `MEDIA_URL=$(curl -s -X POST '${apiBase}/uploads' \\\n  -H "Authorization: Bearer $${TOKEN_VARIABLE}" \\\n` +
    `  -H 'Content-Type: application/octet-stream' --data-binary @${path} | jq -r .url)`
  )
}

/** The comment above the commands: which token the variable holds (its value is shown only at its creation). */
export function tokenComment(token: { label: string; id: string } | null): string {
  return token
    ? `# ${TOKEN_VARIABLE} holds the token “${token.label}” (${token.id}): export ${TOKEN_VARIABLE}=<its value>`
    : `# ${TOKEN_VARIABLE} holds a token that may send from this instance: export ${TOKEN_VARIABLE}=<its value>`
}
