import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Page } from 'playwright-core'
import { seriousViolations } from './axe'
import { chromiumMissing } from './browser'
import { REPO_ROOT } from './headless-server'
import { screenshot } from './screenshots'
import { windowPerSuite } from './window-fixture'

/** The placeholders the shown configurations carry, as a user replaces them. */
const TOKEN_PLACEHOLDER = /<access token[^>]*>/g
const FOLDER_PLACEHOLDER = '/path/to/linkdesk'

describe(
  'the Settings screen shows the MCP endpoint and client configurations that work as copied',
  { skip: chromiumMissing },
  () => {
    const ui = windowPerSuite()
    let page: Page
    const clients: Client[] = []

    before(async () => {
      page = ui.page
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Settings', exact: true })
        .click()
      await page.getByRole('heading', { name: 'AI agents (MCP)' }).waitFor()
    })

    after(async () => {
      for (const client of clients) await client.close()
    })

    /** A token made as the window makes one, with these scopes. */
    async function token(scopes: string[]): Promise<string> {
      const created = await ui.ok<{ token: string }>('admin/tokens/create', {
        label: `mcp ${scopes.join(' ')}`,
        scopes,
      })
      return created.token
    }

    const shownConfig = async (label: string) =>
      JSON.parse(await page.getByRole('textbox', { name: label, exact: true }).inputValue()).mcpServers
        .linkdesk as Record<string, any>

    test('the endpoint is shown beside the API address, and the screen has no serious accessibility violations', async () => {
      const section = page.getByRole('region', { name: 'AI agents (MCP)' })
      assert.match(await section.innerText(), new RegExp(`${ui.server.apiBase}/mcp`.replaceAll('.', '\\.')))
      await section
        .getByRole('button', { name: 'Copy Desktop client configuration (stdio launcher)' })
        .waitFor()
      await section
        .getByRole('button', { name: 'Copy HTTP client configuration (URL and bearer token)' })
        .waitFor()
      for (const theme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: theme })
        assert.deepEqual(await seriousViolations(page), [], `Settings in ${theme} mode`)
      }
      await page.emulateMedia({ colorScheme: 'light' })
      await section.scrollIntoViewIfNeeded()
      await screenshot(page, 'settings-mcp')
    })

    test('the HTTP configuration, its token filled in, connects the SDK’s client, which lists the token’s tools', async () => {
      const config = await shownConfig('HTTP client configuration (URL and bearer token)')
      assert.equal(config.url, `${ui.server.apiBase}/mcp`)
      const readToken = await token(['read'])
      const headers = Object.fromEntries(
        Object.entries(config.headers as Record<string, string>).map(([name, value]) => [
          name,
          value.replace(TOKEN_PLACEHOLDER, readToken),
        ]),
      )
      const client = new Client({ name: 'copied-http-config', version: '1.0.0' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers } }),
      )
      clients.push(client)
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      assert.ok(names.includes('instances') && !names.includes('send_message'), names.join(', '))
    })

    test('the desktop configuration, its folder and token filled in, starts the launcher and calls a tool', async () => {
      const config = await shownConfig('Desktop client configuration (stdio launcher)')
      const fullToken = await token(['read', 'send', 'manage'])
      const env = Object.fromEntries(
        Object.entries(config.env as Record<string, string>).map(([name, value]) => [
          name,
          value.replace(TOKEN_PLACEHOLDER, fullToken),
        ]),
      )
      const client = new Client({ name: 'copied-desktop-config', version: '1.0.0' })
      await client.connect(
        new StdioClientTransport({
          command: config.command,
          args: (config.args as string[]).map((arg) => (arg === FOLDER_PLACEHOLDER ? REPO_ROOT : arg)),
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        }),
      )
      clients.push(client)
      const created = await client.callTool({
        name: 'create_instance',
        arguments: { name: 'Made by an agent' },
      })
      assert.notEqual(created.isError, true, JSON.stringify(created.content))
      const instanceId = (created.structuredContent as { instance_id: string }).instance_id
      // The instance is the app's: a script with the same token finds it.
      const listed = await fetch(`${ui.server.apiBase}/instances`, {
        headers: { authorization: `Bearer ${fullToken}` },
      })
      const ids = ((await listed.json()).instances as Array<{ instance_id: string }>).map(
        (item) => item.instance_id,
      )
      assert.ok(ids.includes(instanceId), ids.join(', '))
    })
  },
)
