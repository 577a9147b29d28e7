import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startTestCore, TEST_TOKEN, type TestCore } from '../testing/test-core'

interface DocumentedParameter {
  name: string
  required: boolean
  schema: { example?: unknown }
}

/** The operations of the OpenAPI document that take a required instance_id, with their parameters. */
function instanceOperations(document: any): Array<{ path: string; parameters: DocumentedParameter[] }> {
  return Object.entries(document.paths as Record<string, { get: { parameters: DocumentedParameter[] } }>)
    .filter(([path]) => !path.includes('{'))
    .map(([path, item]) => ({ path, parameters: item.get?.parameters ?? [] }))
    .filter(({ parameters }) => parameters.some((p) => p.name === 'instance_id' && p.required))
}

/** A query with every other required parameter at its documented example, so only the instance is in question. */
function queryFor(parameters: DocumentedParameter[], token: string, instanceId: string): string {
  const query = new URLSearchParams({ access_token: token, instance_id: instanceId })
  for (const parameter of parameters) {
    if (!parameter.required || parameter.name === 'instance_id') continue
    assert.notEqual(parameter.schema.example, undefined, `${parameter.name} documents an example`)
    query.set(parameter.name, String(parameter.schema.example))
  }
  return query.toString()
}

describe('the instance a token may touch', () => {
  let t: TestCore
  let otherToken: string
  let theirs: string
  before(async () => {
    t = await startTestCore()
    otherToken = (await t.core.tokens.create('other script')).token
    theirs = (await t.call(`/create_instance?access_token=${TEST_TOKEN}`)).body.instance_id
  })
  after(async () => {
    await t.stop()
  })

  test('every operation taking an instance_id answers an unknown id and another token’s instance alike: 404 instance_not_found', async () => {
    const operations = instanceOperations((await t.call('/openapi.json')).body)
    const names = operations.map(({ path }) => path.slice(1))
    for (const seed of ['generate_qrcode', 'reconnect', 'destroy', 'send_message', 'set_webhook']) {
      assert.ok(names.includes(seed), `${seed} is among the instance operations`)
    }
    for (const { path, parameters } of operations) {
      const foreign = await t.call(`${path}?${queryFor(parameters, otherToken, theirs)}`)
      const unknown = await t.call(`${path}?${queryFor(parameters, otherToken, 'NO_SUCH_INSTANCE')}`)
      assert.equal(foreign.status, 404, `${path}: ${JSON.stringify(foreign.body)}`)
      assert.equal(foreign.body.code, 'instance_not_found', path)
      assert.equal(unknown.status, 404, `${path}: ${JSON.stringify(unknown.body)}`)
      assert.deepEqual(unknown.body, foreign.body, `${path}: an unknown and a foreign id answer alike`)
    }
    const owner = await t.call(`/instance?access_token=${TEST_TOKEN}&instance_id=${theirs}`)
    assert.equal(owner.status, 200, 'nothing the other token asked for touched the instance')
    assert.equal(owner.body.instance.instance_id, theirs)
    const webhook = await t.call(`/get_webhook?access_token=${TEST_TOKEN}&instance_id=${theirs}`)
    assert.equal(webhook.body.webhook.url, null, 'the foreign set_webhook changed nothing')
  })

  test('the media download answers an unknown and a foreign instance alike', async () => {
    const foreign = await t.call(`/media/${theirs}/M1?access_token=${otherToken}`)
    const unknown = await t.call(`/media/NO_SUCH_INSTANCE/M1?access_token=${otherToken}`)
    assert.equal(foreign.status, 404)
    assert.equal(foreign.body.code, 'instance_not_found')
    assert.deepEqual(unknown.body, foreign.body)
  })

  test('an instance the manager has no record of is instance_not_found, never a 500', () => {
    assert.throws(
      () => t.core.instances.status('NO_SUCH_INSTANCE'),
      (error: any) => error.code === 'instance_not_found',
    )
  })
})
