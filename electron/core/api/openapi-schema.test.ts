import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Type } from '@sinclair/typebox'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Nullable, OneOf } from '../schema'
import { openApiSchema } from './openapi-schema'

test('unions of constants become enums and "or null" stays JSON Schema 2020, at any depth', () => {
  const schema = Type.Object({
    state: OneOf(['idle', 'qr'] as const, { description: 'The state.' }),
    cause: Nullable(OneOf(['a', 'b'] as const)),
    reason: Nullable(Type.String({ description: 'Why.' })),
    account: Nullable(Type.Object({ name: Nullable(Type.String()) })),
    tags: Type.Array(OneOf(['a'] as const)),
    kind: Type.Literal('x'),
  })
  assert.deepEqual(openApiSchema(schema), {
    type: 'object',
    required: ['state', 'cause', 'reason', 'account', 'tags', 'kind'],
    properties: {
      state: { type: 'string', enum: ['idle', 'qr'], description: 'The state.' },
      cause: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
      reason: { anyOf: [{ type: 'string', description: 'Why.' }, { type: 'null' }] },
      account: {
        anyOf: [
          {
            type: 'object',
            required: ['name'],
            properties: { name: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
          },
          { type: 'null' },
        ],
      },
      tags: { type: 'array', items: { type: 'string', const: 'a' } },
      kind: { type: 'string', const: 'x' },
    },
  })
})

test('a nullable object and a nullable component compile in a JSON Schema validator', () => {
  const Account = Type.Object({ name: Type.String() }, { $id: 'Account' })
  const components: Record<string, Record<string, unknown>> = {}
  const converted = openApiSchema(
    Type.Object({ account: Nullable(Type.Object({ name: Type.String() })), previous: Nullable(Account) }),
    components,
  )
  const validate = new Ajv2020({ strict: true }).compile({ ...rebase(converted), $defs: components })
  assert.equal(validate({ account: null, previous: null }), true)
  assert.equal(validate({ account: { name: 'Alice' }, previous: { name: 'Bob' } }), true)
  assert.equal(validate({ account: 'Alice', previous: null }), false)
  assert.equal(validate({ account: null, previous: 'Bob' }), false)
})

/** The schema with its component references pointing into its own `$defs`. */
function rebase(schema: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')) as Record<
    string,
    unknown
  >
}

test('a schema with an $id becomes a component, referred to wherever it appears', () => {
  const Account = Type.Object({ name: Type.String() }, { $id: 'Account' })
  const components: Record<string, Record<string, unknown>> = {}
  const schema = openApiSchema(Type.Object({ owner: Account, previous: Nullable(Account) }), components)
  assert.deepEqual(schema.properties, {
    owner: { $ref: '#/components/schemas/Account' },
    previous: { anyOf: [{ $ref: '#/components/schemas/Account' }, { type: 'null' }] },
  })
  assert.deepEqual(components, {
    Account: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  })
})
