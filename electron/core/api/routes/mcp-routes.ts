import { Type } from '@sinclair/typebox'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RoutePlugin } from '../build-api'
import { type McpTool, mcpTools, toolsFor } from '../mcp-tools'
import type { RouteDoc } from '../openapi-route'

/** A JSON-RPC 2.0 request (with an `id`) or notification (without), as MCP sends them. */
const JSON_RPC_REQUEST = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
    method: Type.String({ examples: ['tools/list'] }),
    params: Type.Optional(Type.Object({})),
  },
  { examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }] },
)

/** A JSON-RPC 2.0 answer: the request's `id` and its `result`, or an `error`. */
const JSON_RPC_ANSWER = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
  result: Type.Optional(Type.Object({})),
  error: Type.Optional(
    Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
  ),
})

const MCP_DOC: RouteDoc = {
  tag: 'Service',
  summary: 'The MCP endpoint (Model Context Protocol, streamable HTTP) for AI agents.',
  description:
    'POST carries JSON-RPC messages of MCP; the answer is JSON. Stateless: no session and no server stream, so GET and DELETE answer 405. The token (Authorization: Bearer) decides the tools listed: one per operation its scopes allow, with the operation’s parameters as input and its success body as output; a call runs the operation as this API does (its scope, the token’s reach, its errors as an error result naming the code). Resources: `linkdesk://instances/{instance_id}/events` (the instance’s recent events) and `linkdesk://instances/{instance_id}/chats` (its chats).',
  body: {
    schema: Type.Union([JSON_RPC_REQUEST, Type.Array(JSON_RPC_REQUEST, { minItems: 1 })]),
    description: 'A JSON-RPC 2.0 message of MCP (a request or a notification), or a batch of them.',
  },
  answer: {
    schema: Type.Union([JSON_RPC_ANSWER, Type.Array(JSON_RPC_ANSWER)]),
    description:
      'The JSON-RPC answer (a batch: the answers of its requests); a notification alone is answered 202 with no body.',
  },
}

/** The resources an instance offers, by the operation that reads them. */
const RESOURCES = {
  events: { operation: 'events', description: 'The instance’s recent events, newest first.' },
  chats: { operation: 'chats', description: 'The instance’s chats, newest first, with their last message.' },
} as const
type ResourceKind = keyof typeof RESOURCES

const RESOURCE_URI = /^linkdesk:\/\/instances\/([^/]+)\/(events|chats)$/

/** An operation's answer as its HTTP route gives it: the success body, or the error envelope. */
type Answer =
  { status: 'success'; [field: string]: unknown } | { status: 'error'; code: string; message: string }

/**
 * `/mcp` (and `/api/v1/mcp`): an MCP server per request (stateless streamable HTTP, JSON answers) whose tools are the
 * operations and whose calls go through the operations' own routes with the caller's credential, so that a
 * tool is authenticated, scoped, limited to the token's instances and forwarded in a cluster exactly as the
 * HTTP call is.
 */
export function mcpRoutes(deps: { version: string }): RoutePlugin {
  return (app, { prefix, operations, knownPaths }) => {
    const tools = mcpTools(operations)
    // Served at `/mcp` (the address MCP clients are usually given) and beside the API's operations.
    for (const url of ['/mcp', `${prefix}/mcp`]) {
      // Stateless: no stream to open (GET) and no session to end (DELETE); MCP asks for 405 on both.
      knownPaths.add(url)
      app.post(
        url,
        { config: { auth: 'token', scopedPerCall: true, openapi: MCP_DOC } },
        async (request, reply) => {
          const call = (operation: string, args: Record<string, unknown>) =>
            callOperation(app, `${prefix}/${operation}`, request, args)
          const server = mcpServer(deps.version, tools, toolsFor(tools, request.principal), call)
          const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: true,
          })
          reply.hijack()
          reply.raw.once('close', () => {
            void server.close()
          })
          await server.connect(transport)
          await transport.handleRequest(request.raw, reply.raw, request.body)
        },
      )
    }
  }
}

type Call = (operation: string, args: Record<string, unknown>) => Promise<Answer>

function mcpServer(
  version: string,
  tools: readonly McpTool[],
  listed: readonly McpTool[],
  call: Call,
): McpServer {
  const mcp = new McpServer(
    { name: 'linkdesk', version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Linkdesk drives linked WhatsApp accounts (instances). List them with the instances tool; each tool is an operation of the Linkdesk API and acts on the instance named by instance_id. Media goes by URL (media_url), never inline.',
    },
  )
  // The low-level handlers: the tools are JSON schemas from the operation declarations, not zod ones.
  const { server } = mcp
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: listed.map((tool) => tool.definition as Tool),
  }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }): Promise<CallToolResult> => {
    // A tool outside the token's scopes is called all the same, so that its refusal names the scope.
    const tool = tools.find((known) => known.definition.name === params.name)
    if (!tool) {
      return {
        isError: true,
        content: [{ type: 'text', text: `not_found: No tool is named ${params.name}.` }],
      }
    }
    // The credential is the MCP request's, never one given among the arguments.
    const { access_token: _ignored, ...args } = params.arguments ?? {}
    const answer = await call(tool.operation, args)
    if (answer.status === 'error') {
      return { isError: true, content: [{ type: 'text', text: `${answer.code}: ${answer.message}` }] }
    }
    return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer }
  })
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: (Object.keys(RESOURCES) as ResourceKind[]).map((kind) => ({
      uriTemplate: `linkdesk://instances/{instance_id}/${kind}`,
      name: `instance-${kind}`,
      description: RESOURCES[kind].description,
      mimeType: 'application/json',
    })),
  }))
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const listed = await call('instances', {})
    if (listed.status === 'error') throw refusal(listed)
    const instances = (listed.instances ?? []) as Array<{ instance_id: string; name?: string | null }>
    return {
      resources: instances.flatMap((instance) =>
        (Object.keys(RESOURCES) as ResourceKind[]).map((kind) => ({
          uri: `linkdesk://instances/${instance.instance_id}/${kind}`,
          name: `${instance.name || instance.instance_id} ${kind}`,
          description: RESOURCES[kind].description,
          mimeType: 'application/json',
        })),
      ),
    }
  })
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
    const match = RESOURCE_URI.exec(params.uri)
    if (!match) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${params.uri}`)
    const [, instanceId, kind] = match as unknown as [string, string, ResourceKind]
    const answer = await call(RESOURCES[kind].operation, { instance_id: decodeURIComponent(instanceId) })
    if (answer.status === 'error') throw refusal(answer)
    return { contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(answer) }] }
  })
  return mcp
}

function refusal(answer: Extract<Answer, { status: 'error' }>): McpError {
  return new McpError(ErrorCode.InvalidRequest, `${answer.code}: ${answer.message}`)
}

/**
 * Runs an operation through its own route with the MCP request's credential (bearer token, query token or
 * the window's session), as the caller would over HTTP.
 */
async function callOperation(
  app: FastifyInstance,
  url: string,
  request: FastifyRequest,
  args: Record<string, unknown>,
): Promise<Answer> {
  const { authorization, cookie, host } = request.headers
  const queryToken = (request.query as Record<string, unknown> | undefined)?.access_token
  const response = await app.inject({
    method: 'POST',
    url,
    ...(typeof queryToken === 'string' ? { query: { access_token: queryToken } } : {}),
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(cookie ? { cookie } : {}),
      ...(host ? { host } : {}),
    },
    payload: args,
  })
  return response.json<Answer>()
}
