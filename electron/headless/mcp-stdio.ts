// `npm run mcp`: the MCP endpoint of a running Linkdesk (the app or `npm run serve`) for desktop MCP clients,
// which start a server as a command and speak to it on stdin/stdout. Each message is passed on as it is, to
// and from the endpoint; the tools, resources and every check are the endpoint's. Nothing but MCP goes to
// stdout: what the launcher has to say goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { DEFAULT_PORT } from '../core/config'

const url = process.env.LINKDESK_MCP_URL || `http://127.0.0.1:${DEFAULT_PORT}/api/v1/mcp`
const token = process.env.LINKDESK_ACCESS_TOKEN
if (!token) {
  process.stderr.write(
    'linkdesk mcp: set LINKDESK_ACCESS_TOKEN to an access token (the window’s API screen makes one).\n',
  )
  process.exit(2)
}

const local = new StdioServerTransport()
const remote = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { authorization: `Bearer ${token}` } },
})

/** A request the endpoint could not be asked is answered here, so the client is not left waiting. */
function failed(message: JSONRPCMessage, error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error)
  process.stderr.write(`linkdesk mcp: ${url}: ${reason}\n`)
  if (!isJSONRPCRequest(message)) return
  void local.send({
    jsonrpc: '2.0',
    id: message.id,
    error: { code: -32000, message: `Linkdesk at ${url} did not answer: ${reason}` },
  })
}

local.onmessage = (message) => {
  remote.send(message).catch((error: unknown) => failed(message, error))
}
remote.onmessage = (message) => {
  void local.send(message)
}
remote.onerror = (error) => process.stderr.write(`linkdesk mcp: ${error.message}\n`)
local.onclose = () => {
  void remote.close().finally(() => process.exit(0))
}

await remote.start()
await local.start()
