import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import openapiTS, { astToString } from 'openapi-typescript'
import { typeErrors } from '../testing/type-errors'
import { EVENT_CATALOGUE, EVENT_NAMES } from '../contract/event-catalogue'
import { INSTANCE_STATES } from '../contract/instance-state'
import { SEND_TYPES } from '../contract/kinds'
import { InstanceViewSchema } from '../instances/instance-view'
import { startTestCore, type TestCore } from '../testing/test-core'
import { eventSchemaName } from './openapi-schema'

describe('the served OpenAPI document', () => {
  let t: TestCore
  let document: any
  before(async () => {
    t = await startTestCore()
    document = (await t.call('/openapi.json')).body
  })
  after(async () => {
    await t.stop()
  })

  test('is valid OpenAPI 3.1 for a standard validator', async () => {
    assert.equal(document.openapi, '3.1.0')
    // The validator dereferences its input in place: give it a copy.
    await SwaggerParser.validate(structuredClone(document))
  })

  test('declares the access_token of a POST body, as the seed sends it, and lets a body token through', () => {
    const post = document.paths['/send_message'].post
    const body = post.requestBody.content['application/json']
    assert.equal(body.schema.properties.access_token.type, 'string')
    assert.deepEqual(post.security, [{ accessToken: [] }, { bearer: [] }, {}])
    assert.deepEqual(document.paths['/send_message'].get.security, [{ accessToken: [] }, { bearer: [] }])
  })

  test('shows a send_message request for every message kind', () => {
    const { examples } = document.paths['/send_message'].post.requestBody.content['application/json']
    assert.deepEqual(Object.keys(examples), [...SEND_TYPES])
    for (const [type, example] of Object.entries(examples as Record<string, any>)) {
      assert.equal(example.value.type, type)
      assert.equal(typeof example.value.access_token, 'string')
    }
  })

  test('states how lists and decimals are written in a query string', () => {
    const parameters = document.paths['/send_message'].get.parameters as Array<Record<string, any>>
    const mentions = parameters.find((parameter) => parameter.name === 'mentions')
    assert.deepEqual(
      { style: mentions?.style, explode: mentions?.explode, type: mentions?.schema.type },
      { style: 'form', explode: true, type: 'array' },
    )
    const latitude = parameters.find((parameter) => parameter.name === 'latitude')
    assert.equal(latitude?.schema.type, 'number')
  })

  test('describes the instance view and every event of the catalogue, from their contract schemas', () => {
    const { schemas } = document.components
    assert.deepEqual(Object.keys(schemas.Instance.properties), Object.keys(InstanceViewSchema.properties))
    assert.deepEqual(schemas.Instance.properties.state.enum, [...INSTANCE_STATES])
    const listed = document.paths['/instances'].get.responses['200'].content['application/json'].schema
    assert.deepEqual(listed.properties.instances.items, { $ref: '#/components/schemas/Instance' })
    const one = document.paths['/instance'].get.responses['200'].content['application/json'].schema
    assert.deepEqual(one.properties.instance, { $ref: '#/components/schemas/Instance' })
    assert.equal(schemas.Event.oneOf.length, EVENT_NAMES.length)
    for (const name of EVENT_NAMES) {
      const schema = schemas[eventSchemaName(name)]
      assert.deepEqual(schema.properties.event.enum, [name])
      assert.deepEqual(schema.example.data, EVENT_CATALOGUE[name].example)
    }
  })

  test('generates client types that compile and describe the operations', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'linkdesk-openapi-'))
    try {
      writeFileSync(join(folder, 'api.ts'), astToString(await openapiTS(document)))
      writeFileSync(
        join(folder, 'client.ts'),
        [
          "import type { paths } from './api'",
          "type SendBody = NonNullable<paths['/send_message']['post']['requestBody']>['content']['application/json']",
          "export const send: SendBody = { instance_id: 'I', number: '15551234567', type: 'text', message: 'hi' }",
          "type SendQuery = NonNullable<paths['/send_message']['get']['parameters']['query']>",
          "export const query: SendQuery = { instance_id: 'I', number: '1', type: 'media' }",
          "type Created = paths['/create_instance']['get']['responses']['200']['content']['application/json']",
          "export const created: Created = { status: 'success', message: 'Instance created', instance_id: 'I' }",
          '// @ts-expect-error create_instance answers the new instance_id',
          "export const unnamed: Created = { status: 'success', message: 'Instance created' }",
          "type Listed = paths['/instances']['get']['responses']['200']['content']['application/json']",
          "export const states: NonNullable<Listed['instances']>[number]['state'][] = ['qr', 'connected']",
          '// @ts-expect-error state is one of the instance states',
          "export const badState: NonNullable<Listed['instances']>[number]['state'] = 'linked'",
          '// @ts-expect-error type is one of text or media',
          "export const wrong: SendBody = { instance_id: 'I', number: '1', type: 'fax' }",
        ].join('\n'),
      )
      assert.deepEqual(typeErrors([join(folder, 'client.ts')]), [])
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
