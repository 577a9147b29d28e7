import assert from 'node:assert/strict'
import { resolve } from 'node:path'
import { after, describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Scope } from '../../contract/principal'
import { linkedCoreFixture } from '../../testing/linked-core'
import { eventually } from '../../testing/messaging-harness'
import { OPERATION_SCOPES } from '../scopes'

// The MCP endpoint as an agent's client meets it: the SDK's own Client, over its streamable HTTP transport (and
// over stdio through the launcher), against a core linked to a sandbox phone.

const ME = '15550390001'
const CAROL = '15550390002'
const ROOT = resolve(import.meta.dirname, '../../../..')

const linked = linkedCoreFixture(ME, [{ phone: CAROL, name: 'Carol' }])
const clients: Client[] = []

after(async () => {
  for (const client of clients) await client.close()
})

const mcpUrl = () => new URL(`${linked.core.apiBase}/mcp`)

/** A token with these scopes, reaching every instance unless told. */
async function tokenWith(scopes: Scope[], reach: 'all' | 'chosen' = 'all'): Promise<string> {
  return (await linked.core.tokens.create(`mcp ${scopes.join(' ')}`, { reach, scopes })).token
}

async function connect(token: string | undefined, url = mcpUrl()): Promise<Client> {
  const client = new Client({ name: 'linkdesk-test', version: '1.0.0' })
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  clients.push(client)
  return client
}

const textOf = (result: Record<string, unknown>) =>
  (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('\n')

describe('the MCP endpoint', () => {
  test('a read-only token lists the read operations as read-only tools, no send tool among them', async () => {
    const client = await connect(await tokenWith(['read']))
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    for (const name of ['instances', 'chats', 'chat_messages', 'events', 'contacts']) {
      assert.ok(names.includes(name), `${name} is listed: ${names.join(', ')}`)
    }
    for (const tool of tools) {
      assert.equal(OPERATION_SCOPES[tool.name], 'read', `${tool.name} needs only read`)
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name)
    }
    for (const name of [
      'send_message',
      'send_poll',
      'react',
      'forward_message',
      'destroy',
      'create_instance',
    ])
      assert.ok(!names.includes(name), `${name} is not listed for a read-only token`)
  })

  test('the endpoint answers at /mcp as well, with the same tools for the same token', async () => {
    const token = await tokenWith(['read', 'send'])
    const root = new URL('/mcp', linked.core.apiBase)
    assert.notEqual(root.href, mcpUrl().href)
    const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort()
    const atRoot = await names(await connect(token, root))
    assert.ok(atRoot.includes('send_message'), atRoot.join(', '))
    assert.deepEqual(atRoot, await names(await connect(token)))
    const refused = await fetch(root, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    assert.equal(refused.status, 401)
  })

  test('a full token lists the send and destructive tools, their schemas as the OpenAPI document states them', async () => {
    const client = await connect(await tokenWith(['read', 'send', 'manage', 'admin']))
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    for (const name of ['send_message', 'send_poll', 'react', 'mark_read', 'instances'])
      assert.ok(byName.has(name), `${name} is listed`)
    for (const name of ['destroy', 'delete_message', 'leave_group', 'block', 'remove_webhook'])
      assert.equal(byName.get(name)?.annotations?.destructiveHint, true, `${name} is destructive`)
    assert.equal(byName.get('send_message')?.annotations?.destructiveHint, false)
    assert.equal(byName.get('send_message')?.annotations?.readOnlyHint, false)
    // Operations for the window only are not tools.
    assert.ok(!byName.has('admin_login') && !byName.has('admin_session'))

    const document = (await (await fetch(`${linked.core.apiBase}/openapi.json`)).json()) as any
    const send = document.paths['/send_message'].post
    const body = send.requestBody.content['application/json'].schema
    const { access_token: _token, ...documented } = body.properties
    const tool = byName.get('send_message')!
    assert.deepEqual(tool.inputSchema.properties, documented)
    assert.deepEqual(tool.inputSchema.required, body.required)
    assert.ok(tool.inputSchema.required?.includes('instance_id'))
    assert.equal(tool.title, send.summary)
    // Every tool answers an object with status, as the operation's 200 answer in the document.
    for (const listed of tools) assert.equal(listed.outputSchema?.type, 'object', listed.name)
  })

  test('send_message through the tool reaches the contact in the sandbox, and the answer matches the tool’s output schema', async () => {
    const client = await connect(await tokenWith(['read', 'send']))
    const before = linked.control.inbox(CAROL).length
    const result = await client.callTool({
      name: 'send_message',
      arguments: {
        instance_id: linked.instanceId,
        number: CAROL,
        type: 'text',
        message: 'Hello from an agent',
      },
    })
    assert.notEqual(result.isError, true, textOf(result))
    const sent = result.structuredContent as any
    assert.equal(sent.status, 'success')
    const messageId = sent.message.key.id as string
    const entry = await eventually(
      () => linked.control.inbox(CAROL).find((item) => item.id === messageId),
      (found) => found !== undefined,
      'the message in Carol’s inbox',
    )
    assert.equal(entry?.text, 'Hello from an agent')
    assert.equal(linked.control.inbox(CAROL).length, before + 1)
  })

  test('the events resource of the instance holds its recent events; its chats resource lists the chat', async () => {
    const client = await connect(await tokenWith(['read']))
    const { resourceTemplates } = await client.listResourceTemplates()
    assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate).sort(), [
      'linkdesk://instances/{instance_id}/chats',
      'linkdesk://instances/{instance_id}/events',
    ])
    const { resources } = await client.listResources()
    const uri = `linkdesk://instances/${linked.instanceId}/events`
    assert.ok(
      resources.some((resource) => resource.uri === uri),
      JSON.stringify(resources),
    )

    const read = await client.readResource({ uri })
    const content = read.contents[0] as { text: string; mimeType: string }
    assert.equal(content.mimeType, 'application/json')
    const { events } = JSON.parse(content.text)
    assert.ok(events.length > 0)
    for (const event of events) assert.equal(event.instance_id, linked.instanceId)
    assert.ok(
      events.some((event: any) => event.event === 'connection.update' && event.data.state === 'connected'),
      'the instance’s connection is among its events',
    )

    // The chat that send_message began (or, run alone, none yet: the resource answers the instance's chats).
    const chats = JSON.parse(
      (
        (await client.readResource({ uri: `linkdesk://instances/${linked.instanceId}/chats` }))
          .contents[0] as any
      ).text,
    )
    assert.equal(chats.status, 'success')
    assert.ok(Array.isArray(chats.chats))
  })

  test('a tool outside the token’s scopes is refused with insufficient_scope, and nothing is sent', async () => {
    const client = await connect(await tokenWith(['read']))
    const before = linked.control.inbox(CAROL).length
    const result = await client.callTool({
      name: 'send_message',
      arguments: { instance_id: linked.instanceId, number: CAROL, type: 'text', message: 'must not arrive' },
    })
    assert.equal(result.isError, true)
    assert.match(textOf(result), /^insufficient_scope: .*send scope/)
    // A later message from a full token arrives after nothing else: the refused one never left.
    const full = await connect(await tokenWith(['read', 'send']))
    const marker = await full.callTool({
      name: 'send_message',
      arguments: {
        instance_id: linked.instanceId,
        number: CAROL,
        type: 'text',
        message: 'after the refusal',
      },
    })
    const markerId = (marker.structuredContent as any).message.key.id as string
    await eventually(
      () => linked.control.inbox(CAROL).some((item) => item.id === markerId),
      Boolean,
      'the marker in Carol’s inbox',
    )
    assert.deepEqual(
      linked.control
        .inbox(CAROL)
        .slice(before)
        .map((item) => item.text),
      ['after the refusal'],
    )
  })

  test('an instance outside the token’s reach is answered as unknown, in tools and resources alike', async () => {
    const client = await connect(await tokenWith(['read', 'send'], 'chosen'))
    const result = await client.callTool({ name: 'chats', arguments: { instance_id: linked.instanceId } })
    assert.equal(result.isError, true)
    assert.match(textOf(result), /^instance_not_found: /)
    const { resources } = await client.listResources()
    assert.deepEqual(resources, [])
    await assert.rejects(
      client.readResource({ uri: `linkdesk://instances/${linked.instanceId}/events` }),
      /instance_not_found/,
    )
  })

  test('without a token, or with an unknown one, the endpoint answers 401', async () => {
    const unauthorized = (error: { code?: unknown; message: string }) => {
      assert.equal(error.code, 401, error.message)
      assert.match(error.message, /"code":"unauthorized"/)
      return true
    }
    await assert.rejects(connect(undefined), unauthorized)
    await assert.rejects(connect('not-a-token'), unauthorized)
    // Stateless: no stream to open and no session to end, which MCP asks to answer with 405.
    const headers = { authorization: `Bearer ${await tokenWith(['read'])}` }
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(mcpUrl(), { method, headers })
      assert.equal(answer.status, 405, method)
      assert.equal((await answer.json()).code, 'method_not_allowed')
    }
  })

  test('the stdio launcher, started as a desktop client starts it, bridges a tool call to the running app', async () => {
    const client = new Client({ name: 'linkdesk-desktop-test', version: '1.0.0' })
    const transport = new StdioClientTransport({
      command: 'npm',
      args: ['--silent', '--prefix', ROOT, 'run', 'mcp'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        LINKDESK_MCP_URL: mcpUrl().href,
        LINKDESK_ACCESS_TOKEN: await tokenWith(['read']),
      },
      stderr: 'pipe',
    })
    let stderr = ''
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    await client.connect(transport).catch((error: unknown) => {
      throw new Error(`the launcher did not start: ${String(error)}\n${stderr}`)
    })
    clients.push(client)
    const result = await client.callTool({ name: 'instances', arguments: {} })
    assert.notEqual(result.isError, true, textOf(result))
    const ids = (result.structuredContent as any).instances.map((instance: any) => instance.instance_id)
    assert.deepEqual(ids, [linked.instanceId])
    const { tools } = await client.listTools()
    assert.ok(!tools.some((tool) => tool.name === 'send_message'))
  })
})
