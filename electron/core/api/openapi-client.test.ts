import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually, TOKEN } from '../testing/messaging-harness'

/**
 * The document as a client's author meets it: a typed client generated from it (openapi-typescript's types,
 * openapi-fetch's calls) drives the server, and every answer an operation gives is checked against the schema
 * the document declares for it.
 */

const ME = '15550610001'
const CAROL = '15550610002'
const ROOT = resolve(import.meta.dirname, '../../..')

/** Type errors of `files` compiled together under strict settings, as readable lines. */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: true,
    types: [],
  })
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

const CLIENT = `import createClient from 'openapi-fetch'
import type { paths } from './api'

/** create_instance, send_message and instances through the generated client, with the answers' typed fields. */
export async function run(baseUrl: string, token: string, instanceId: string, number: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } })
  const created = await client.POST('/create_instance', { body: { name: 'Generated client' } })
  if (!created.data) throw new Error(JSON.stringify(created.error))
  const newId: string = created.data.instance_id
  const sent = await client.POST('/send_message', {
    body: { instance_id: instanceId, number, type: 'text', message: 'Hello from a generated client' },
  })
  if (!sent.data) throw new Error(JSON.stringify(sent.error))
  const messageId: string = sent.data.message.key.id
  const listed = await client.GET('/instances')
  if (!listed.data) throw new Error(JSON.stringify(listed.error))
  const listedIds: string[] = listed.data.instances.map((instance) => instance.instance_id)
  return { newId, messageId, listedIds }
}
`

describe('the document against the running server', () => {
  const linked = linkedCoreFixture(ME, [{ phone: CAROL, name: 'Carol' }])

  let document: any
  before(async () => {
    const answer = await fetch(`${linked.core.apiBase}/openapi.json`)
    document = await answer.json()
  })

  describe('a client generated from the document', () => {
    let folder: string
    before(() => {
      // Inside the project, so the client's import of openapi-fetch resolves to the project's copy.
      mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true })
      folder = mkdtempSync(join(ROOT, 'node_modules/.cache/openapi-client-'))
    })
    after(() => {
      rmSync(folder, { recursive: true, force: true })
    })

    test('compiles, creates an instance, sends a text the contact receives, and lists the instances', async () => {
      writeFileSync(join(folder, 'api.ts'), astToString(await openapiTS(document)))
      writeFileSync(join(folder, 'client.ts'), CLIENT)
      assert.deepEqual(typeErrors([join(folder, 'client.ts')]), [])

      const compiled = ts.transpileModule(readFileSync(join(folder, 'client.ts'), 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      })
      writeFileSync(join(folder, 'client.mjs'), compiled.outputText)
      const { run } = await import(pathToFileURL(join(folder, 'client.mjs')).href)
      const { newId, messageId, listedIds } = await run(linked.core.apiBase, TOKEN, linked.instanceId, CAROL)

      const received = await eventually(
        () => linked.control.inbox(CAROL).find((entry) => entry.id === messageId),
        Boolean,
        'the message in the contact’s inbox',
      )
      assert.equal(received?.text, 'Hello from a generated client')
      assert.equal(linked.core.registry.find(newId)?.id, newId)
      assert.deepEqual([...listedIds].sort(), [linked.instanceId, newId].sort())
    })
  })

  describe('the answers of the running server', () => {
    const seen = new Set<string>()
    let dereferenced: any
    const ajv = new Ajv2020({ strict: true, validateFormats: false, allErrors: true })
    ajv.addKeyword('example')

    before(async () => {
      dereferenced = await SwaggerParser.dereference(structuredClone(document))
    })

    /** Calls `name` with a JSON body and checks its 200 answer against the document's schema, fields included. */
    async function checked(name: string, params: Record<string, unknown> = {}): Promise<any> {
      const response = await fetch(`${linked.core.apiBase}/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: TOKEN, ...params }),
      })
      const body = await response.json()
      assert.equal(response.status, 200, `${name}: ${JSON.stringify(body)}`)
      const schema = dereferenced.paths[`/${name}`].post.responses['200'].content['application/json'].schema
      // Every field of the answer is declared: a client generated from the document sees all of it.
      const validate = ajv.compile({ ...schema, additionalProperties: false })
      assert.ok(validate(body), `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`)
      seen.add(name)
      return body
    }

    test('every operation that declares its answer answers as declared', async () => {
      const { instance_id: fresh } = await checked('create_instance', { name: 'Checked' })
      await checked('instances')
      await checked('instance', { instance_id: fresh })
      await checked('update_instance', { instance_id: fresh, name: 'Renamed', auto_read: true })
      await checked('set_webhook', {
        instance_id: fresh,
        webhook_url: 'http://127.0.0.1:9/hook',
        enable: false,
      })
      await checked('pairing_code', { instance_id: fresh, phone: '15550610009' })
      await checked('reinitialize', { instance_id: fresh })
      await checked('generate_qrcode', { instance_id: fresh })
      await checked('destroy', { instance_id: fresh })
      const to = { instance_id: linked.instanceId, number: CAROL }
      await checked('send_message', { ...to, type: 'text', message: 'Checked' })
      await checked('send_message', { ...to, type: 'location', latitude: -33.8568, longitude: 151.2153 })
      await checked('send_message', { ...to, type: 'contacts', contacts: ['Bob Builder:15551230003'] })
      await checked('send_presence', { ...to, presence: 'typing' })
      await checked('block', to)
      await checked('unblock', to)
      await checked('health')
      await checked('reconnect', { instance_id: linked.instanceId })

      const declaring = Object.entries(dereferenced.paths as Record<string, any>)
        .filter(([, item]) => item.post?.responses['200'].content['application/json'])
        .filter(([, item]) => {
          const { properties } = item.post.responses['200'].content['application/json'].schema
          return Object.keys(properties).length > 1
        })
        .map(([path]) => path.slice(1))
      const unexercised = declaring.filter(
        (name) => !seen.has(name) && !ALIASES.has(name) && !ROUTES_NOT_OPERATIONS.has(name),
      )
      assert.deepEqual(unexercised, [])
    })
  })
})

/** Aliases answer as the operation they name (one declaration, checked under its own name). */
const ALIASES = new Set(['get_qrcode', 'reboot', 'reset_instance', 'send', 'send_group'])
/** Routes with their own tests (uploads: upload-routes.test.ts); the sandbox's own answers: its tests. */
const ROUTES_NOT_OPERATIONS = new Set(['uploads'])
