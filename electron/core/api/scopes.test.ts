import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { SCOPES, type Scope } from '../contract/principal'
import { startTestCore, type TestCore } from '../testing/test-core'
import { OPERATION_SCOPES } from './scopes'

describe('the scope table', () => {
  let t: TestCore
  /** For each scope, a token holding every scope but that one. */
  const without = {} as Record<Scope, string>
  before(async () => {
    t = await startTestCore({ sandbox: true })
    for (const scope of SCOPES) {
      const others = SCOPES.filter((other) => other !== scope)
      without[scope] = (await t.core.tokens.create(`no ${scope}`, { reach: 'all', scopes: others })).token
    }
  })
  after(async () => {
    await t.stop()
  })

  /** Asserts that the token lacking `scope` is refused on `path` with 403 naming it. */
  async function refusedWithout(path: string, scope: Scope, method = 'GET'): Promise<void> {
    const answer = await t.call(path, { method, headers: { authorization: `Bearer ${without[scope]}` } })
    assert.equal(answer.status, 403, `${path}: ${JSON.stringify(answer.body)}`)
    assert.equal(answer.body.code, 'insufficient_scope', path)
    assert.equal(answer.body.details.required_scope, scope, path)
  }

  test('every documented operation that takes a token needs the scope the table names, aliases alike', async () => {
    const document = (await t.call('/openapi.json')).body
    // Flat operations answer GET and POST alike; the other routes are the next test's.
    const operations = Object.entries<any>(document.paths).filter(
      ([path, item]) => item.get && item.post && !path.startsWith('/sandbox/'),
    )
    const aliasOf = new Map<string, string>()
    for (const [path, item] of operations) {
      const also = /Also answers at: (.*)\.$/m.exec(item.get.description ?? '')?.[1]
      const aliases = also?.split(', ') ?? []
      // The alias paths repeat the description: the operation's own path is the one not among its aliases.
      if (aliases.includes(path.slice(1))) continue
      for (const alias of aliases) aliasOf.set(alias, path.slice(1))
    }
    let checked = 0
    for (const [path, item] of operations) {
      if (item.get.security.length === 0) continue
      const name = path.slice(1)
      const scope = OPERATION_SCOPES[aliasOf.get(name) ?? name]
      assert.ok(scope, `${name} has a scope in the table`)
      await refusedWithout(path, scope)
      checked += 1
    }
    assert.ok(checked > 60, `${checked} operations checked`)
  })

  test('the routes that are not flat operations need theirs too', async () => {
    await refusedWithout('/stream', 'read')
    await refusedWithout('/metrics', 'read')
    await refusedWithout('/media/ANY/M1', 'read')
    await refusedWithout('/profile_picture/ANY/15550001111', 'read')
    await refusedWithout('/uploads', 'send', 'POST')
    await refusedWithout('/sandbox/accounts', 'admin')
  })
})
