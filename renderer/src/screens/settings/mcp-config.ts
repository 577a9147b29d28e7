/** What a user puts in place of the access token, in the configurations the window shows. */
const TOKEN_PLACEHOLDER = '<access token from the Tokens screen>'
/** What a user puts in place of the folder Linkdesk was installed from (where `npm run mcp` runs). */
const FOLDER_PLACEHOLDER = '/path/to/linkdesk'

/** The MCP endpoint beside the API's operations. */
export function mcpEndpoint(apiBase: string): string {
  return `${apiBase}/mcp`
}

/**
 * A desktop MCP client's configuration (the `mcpServers` form of Claude Desktop and others): the client starts
 * the stdio launcher, which connects to this app's endpoint with the token.
 */
export function stdioClientConfig(apiBase: string): string {
  const server = {
    command: 'npm',
    args: ['--silent', '--prefix', FOLDER_PLACEHOLDER, 'run', 'mcp'],
    env: { LINKDESK_MCP_URL: mcpEndpoint(apiBase), LINKDESK_ACCESS_TOKEN: TOKEN_PLACEHOLDER },
  }
  return JSON.stringify({ mcpServers: { linkdesk: server } }, null, 2)
}

/** A client that speaks streamable HTTP itself: the endpoint's URL and the token as a bearer header. */
export function httpClientConfig(apiBase: string): string {
  const server = {
    type: 'http',
    url: mcpEndpoint(apiBase),
    headers: { Authorization: `Bearer ${TOKEN_PLACEHOLDER}` },
  }
  return JSON.stringify({ mcpServers: { linkdesk: server } }, null, 2)
}
