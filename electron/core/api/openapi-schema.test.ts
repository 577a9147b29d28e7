import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Type } from '@sinclair/typebox'
import { Nullable, OneOf } from '../schema'
import { openApiSchema } from './openapi-schema'

test('unions of constants become enums and "or null" becomes nullable, at any depth', () => {
  const schema = Type.Object({
    state: OneOf(['idle', 'qr'] as const, { description: 'The state.' }),
    reason: Nullable(Type.String({ description: 'Why.' })),
    account: Nullable(Type.Object({ name: Nullable(Type.String()) })),
    tags: Type.Array(OneOf(['a'] as const)),
    kind: Type.Literal('x'),
  })
  assert.deepEqual(openApiSchema(schema), {
    type: 'object',
    required: ['state', 'reason', 'account', 'tags', 'kind'],
    properties: {
      state: { type: 'string', enum: ['idle', 'qr'], description: 'The state.' },
      reason: { type: 'string', description: 'Why.', nullable: true },
      account: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', nullable: true } },
        nullable: true,
      },
      tags: { type: 'array', items: { type: 'string', enum: ['a'] } },
      kind: { type: 'string', enum: ['x'] },
    },
  })
})

test('a schema with an $id becomes a component, referred to wherever it appears', () => {
  const Account = Type.Object({ name: Type.String() }, { $id: 'Account' })
  const components: Record<string, Record<string, unknown>> = {}
  const schema = openApiSchema(Type.Object({ owner: Account, previous: Nullable(Account) }), components)
  assert.deepEqual(schema.properties, {
    owner: { $ref: '#/components/schemas/Account' },
    previous: { allOf: [{ $ref: '#/components/schemas/Account' }], nullable: true },
  })
  assert.deepEqual(components, {
    Account: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  })
})
