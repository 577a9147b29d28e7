import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { startTestCore, type TestCore } from '../testing/test-core'

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

  test('is valid OpenAPI 3 for a standard validator', async () => {
    // The validator dereferences its input in place: give it a copy.
    await SwaggerParser.validate(structuredClone(document))
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
          "export const created: Created = { status: 'success' }",
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
