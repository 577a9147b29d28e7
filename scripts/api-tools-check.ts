/**
 * The API document judged by tools no one here wrote: Portman converts it into a Postman collection with
 * contract tests and variations (wrong token, unknown instance, a required field left out), newman runs that
 * collection through Prism's validation proxy in front of the real headless server (sandbox mode, one linked
 * instance), and Prism reports every request or answer that breaks the document.
 *
 *   node --import tsx scripts/api-tools-check.ts [--keep <folder>]
 *
 * The tools are installed on first use at the versions below into node_modules/.cache/api-tools: they are not
 * dependencies of the project (docs/api.md, "Checked by outside tools", says why). Exits non-zero when Prism
 * saw a violation or newman an assertion fail.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT, startHeadlessServer } from '../renderer/e2e/headless-server'

/**
 * The tools, pinned. Prism 5.14.2 is the newest whose engines accept Node 20 (5.16 asks for Node 24); Portman
 * requires tslib without declaring it, so it is installed beside it.
 */
const TOOLS = ['@apideck/portman@1.33.0', 'tslib@2.8.1', 'newman@6.2.2', '@stoplight/prism-cli@5.14.2']
/** Where they are installed, once, apart from the project's own dependencies. */
const TOOLS_DIR = join(REPO_ROOT, 'node_modules/.cache/api-tools')
const bin = (name: string) => join(TOOLS_DIR, 'node_modules/.bin', name)

const TOKEN = 'api-tools-check-token'
const ME = '15550701111'
const BOB = '15550702222'
const CAROL = '15550703333'
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
)

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/** Runs a command to its end; answers its output and exit code. */
function run(command: string, args: string[], cwd?: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => resolve({ code: code ?? 1, output }))
  })
}

/** A call to the server, answered as JSON; a failure stops the check (the set-up must work). */
async function call<T = unknown>(
  apiBase: string,
  path: string,
  body: Record<string, unknown> = {},
): Promise<T> {
  const response = await fetch(`${apiBase}/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await response.json()) as T
  if (!response.ok) throw new Error(`${path}: ${JSON.stringify(answer)}`)
  return answer
}

/** Polls `found` until it gives a value. */
async function eventually<T>(found: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const value = await found()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`no ${what}`)
}

/** What the operations are called with: a linked instance, its contacts, a group, a channel, a file. */
async function setUp(apiBase: string): Promise<Record<string, string>> {
  const { instance_id: instanceId } = await call<{ instance_id: string }>(apiBase, 'create_instance', {
    name: 'Checked',
  })
  await call(apiBase, 'sandbox_scan', { instance_id: instanceId, phone: ME })
  await call(apiBase, 'sandbox/accounts', { phone: BOB, name: 'Bob', auto_reply: 'echo' })
  await call(apiBase, 'sandbox/accounts', { phone: CAROL, name: 'Carol' })
  const { id: messageId } = await call<{ id: string }>(apiBase, `sandbox/accounts/${BOB}/messages`, {
    to: ME,
    media_base64: PNG.toString('base64'),
    mimetype: 'image/png',
    caption: 'A picture',
  })
  await eventually(async () => {
    const { events } = await call<{ events: Array<{ data: { id?: string } }> }>(apiBase, 'events', {
      instance_id: instanceId,
      event: 'message.received',
    })
    return events.find((event) => event.data.id === messageId)
  }, 'the picture received')
  const { group } = await call<{ group: { id: string } }>(apiBase, 'create_group', {
    instance_id: instanceId,
    subject: 'Checked',
    participants: [BOB, CAROL],
  })
  const { channel } = await call<{ channel: { id: string } }>(apiBase, `sandbox/accounts/${CAROL}/channels`, {
    name: 'Carol news',
  })
  const { post } = await call<{ post: { server_id: number } }>(
    apiBase,
    `sandbox/accounts/${CAROL}/channels/${channel.id}/posts`,
    {
      text: 'From Carol',
    },
  )
  const upload = await fetch(`${apiBase}/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'image/png' },
    body: PNG,
  })
  const { upload_id: uploadId } = (await upload.json()) as { upload_id: string }
  return {
    instance_id: instanceId,
    instanceId,
    number: BOB,
    phone: BOB,
    message_id: messageId,
    messageId,
    group_id: group.id,
    group: group.id,
    channel_id: channel.id,
    channelId: channel.id,
    channel: channel.id,
    postId: String(post.server_id),
    id: uploadId,
    chat: `${BOB}@s.whatsapp.net`,
  }
}

interface Operation {
  operationId: string
  security?: unknown[]
  parameters?: Array<{ name: string; required?: boolean }>
  requestBody?: { content?: Record<string, { schema?: { required?: string[] } }> }
}

interface Document {
  paths: Record<string, Record<string, Operation>>
}

/** The document's operations, as `[method, path, operation]`. */
function operationsOf(document: Document): Operation[] {
  return Object.values(document.paths).flatMap((item) => Object.values(item))
}

/** Whether an operation takes a required `instance_id` (in its query string or its JSON body). */
function takesInstance(operation: Operation): boolean {
  const query = operation.parameters?.some((p) => p.name === 'instance_id' && p.required)
  const body = operation.requestBody?.content?.['application/json']?.schema?.required?.includes('instance_id')
  return Boolean(query || body)
}

/** Whether an operation's JSON body has a required field to leave out. */
function hasRequiredBody(operation: Operation): boolean {
  return (operation.requestBody?.content?.['application/json']?.schema?.required?.length ?? 0) > 0
}

/** A failed assertion in newman's JSON report. */
interface NewmanFailure {
  source?: { name?: string }
  error?: { message?: string; test?: string }
}

const WRONG = 'wrong-token'
const UNKNOWN_INSTANCE = 'UNKNOWNINSTANCE000000000'

/** A variation of the operations `ids`: its overwrites, and the status it must answer. */
function variation(name: string, ids: string[], code: number, change: Record<string, unknown>) {
  return {
    openApiOperationIds: ids,
    openApiResponse: '4XX',
    variations: [{ name, ...change, tests: { contractTests: [{ statusCode: { enabled: true, code } }] } }],
  }
}

/**
 * Portman's configuration: every operation's contract (status, content type, JSON body, schema), its
 * parameters replaced by the set-up's real values, and the variations a client gets wrong: a wrong token (401)
 * where a token is needed, an unknown instance (404) where an instance is named, each required body field left
 * out (400).
 */
function portmanConfig(document: Document, values: Record<string, string>): Record<string, unknown> {
  const secured = (operation: Operation) => (operation.security?.length ?? 0) > 0
  const jsonBody = (operation: Operation) => Boolean(operation.requestBody?.content?.['application/json'])
  const wrongToken = {
    overwriteRequestQueryParams: [{ key: 'access_token', value: WRONG, overwrite: true }],
    overwriteRequestHeaders: [{ key: 'Authorization', value: `Bearer ${WRONG}`, overwrite: true }],
  }
  const contract = { openApiOperation: '*::/*' }
  const operations = operationsOf(document)
  const ids = (keep: (operation: Operation) => boolean) =>
    operations.filter(keep).map((operation) => operation.operationId)
  return {
    version: 1.0,
    tests: {
      contractTests: [
        { ...contract, statusSuccess: { enabled: true } },
        { ...contract, contentType: { enabled: true } },
        { ...contract, jsonBody: { enabled: true } },
        { ...contract, schemaValidation: { enabled: true } },
      ],
      variationTests: [
        // Portman rewrites only a JSON body: the raw upload gets its token changed in the query and header.
        variation(
          'WrongToken',
          ids((operation) => secured(operation) && jsonBody(operation)),
          401,
          {
            overwrites: [
              {
                ...wrongToken,
                overwriteRequestBody: [{ key: 'access_token', value: WRONG, overwrite: true }],
              },
            ],
          },
        ),
        variation(
          'WrongToken',
          ids((operation) => secured(operation) && !jsonBody(operation)),
          401,
          {
            overwrites: [wrongToken],
          },
        ),
        variation(
          'UnknownInstance',
          ids((operation) => takesInstance(operation) && jsonBody(operation)),
          404,
          {
            overwrites: [
              {
                overwriteRequestQueryParams: [
                  { key: 'instance_id', value: UNKNOWN_INSTANCE, overwrite: true },
                ],
                overwriteRequestBody: [{ key: 'instance_id', value: UNKNOWN_INSTANCE, overwrite: true }],
              },
            ],
          },
        ),
        variation('MissingRequired', ids(hasRequiredBody), 400, {
          fuzzing: [{ requestBody: [{ requiredFields: { enabled: true } }] }],
        }),
      ],
    },
    globals: {
      // Each parameter named as a set-up value takes it, through a variable of its own name.
      keyValueReplacements: Object.fromEntries(Object.keys(values).map((key) => [key, `{{set_up_${key}}}`])),
      collectionVariables: {
        ...Object.fromEntries(Object.entries(values).map(([key, value]) => [`set_up_${key}`, value])),
        token: TOKEN,
      },
      securityOverwrites: { apiKey: { value: '{{token}}' }, bearer: { token: '{{token}}' } },
    },
  }
}

/**
 * Installs the tools into TOOLS_DIR unless the versions there are these: without install scripts (the only
 * one among them is a usage report's), from the npm registry like every other package.
 */
async function installTools(): Promise<void> {
  const marker = join(TOOLS_DIR, 'installed.json')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === JSON.stringify(TOOLS)) return
  mkdirSync(TOOLS_DIR, { recursive: true })
  writeFileSync(join(TOOLS_DIR, 'package.json'), '{"private":true}\n')
  const installed = await run('npm', [
    'install',
    '--prefix',
    TOOLS_DIR,
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--no-save',
    ...TOOLS,
  ])
  if (installed.code !== 0) throw new Error(`The tools could not be installed:\n${installed.output}`)
  writeFileSync(marker, JSON.stringify(TOOLS))
}

async function main(): Promise<void> {
  const keep = process.argv.indexOf('--keep')
  const folder = keep > 0 ? process.argv[keep + 1]! : mkdtempSync(join(tmpdir(), 'linkdesk-api-tools-'))
  await installTools()
  const server = await startHeadlessServer(['--sandbox', '--send-interval-ms', '0'], { accessToken: TOKEN })
  let prism: ChildProcess | undefined
  try {
    const values = await setUp(server.apiBase)
    const document = (await (await fetch(`${server.apiBase}/openapi.json`)).json()) as Document
    // The tools reach the server through Prism, which forwards to the API's base: the copy they read names
    // Prism's address as its server, and nothing else of it changes.
    const prismPort = await freePort()
    const prismBase = `http://127.0.0.1:${prismPort}`
    const documentPath = join(folder, 'openapi.json')
    writeFileSync(documentPath, JSON.stringify({ ...document, servers: [{ url: prismBase }] }, null, 2))
    writeFileSync(
      join(folder, 'portman-config.json'),
      JSON.stringify(portmanConfig(document, values), null, 2),
    )

    prism = spawn(bin('prism'), ['proxy', documentPath, server.apiBase, '--port', String(prismPort)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let prismLog = ''
    prism.stdout!.on('data', (chunk: Buffer) => (prismLog += chunk.toString()))
    prism.stderr!.on('data', (chunk: Buffer) => (prismLog += chunk.toString()))
    await eventually(async () => (/Prism is listening/.test(prismLog) ? true : undefined), 'Prism')

    const collection = join(folder, 'collection.json')
    const converted = await run(
      bin('portman'),
      [
        '--local',
        documentPath,
        '--baseUrl',
        prismBase,
        '--portmanConfigFile',
        join(folder, 'portman-config.json'),
        '--output',
        collection,
        '--includeTests',
        'true',
        '--syncPostman',
        'false',
        '--runNewman',
        'false',
        // Portman keeps its working files in its folder's tmp/: the check's folder, not the repository.
      ],
      folder,
    )
    writeFileSync(join(folder, 'portman.log'), converted.output)
    if (converted.code !== 0) throw new Error(`Portman could not convert the document:\n${converted.output}`)

    const report = join(folder, 'newman.json')
    const newman = await run(bin('newman'), [
      'run',
      collection,
      '--reporters',
      'json',
      '--reporter-json-export',
      report,
    ])
    writeFileSync(join(folder, 'newman.log'), newman.output)
    writeFileSync(join(folder, 'prism.log'), prismLog)
    const { run: outcome } = JSON.parse(readFileSync(report, 'utf8'))
    const violations = prismLog.split('\n').filter((line) => /violation/i.test(line))
    const failures = outcome.failures.map(
      (failure: NewmanFailure) =>
        `${failure.source?.name ?? '?'}: ${failure.error?.message ?? failure.error?.test}`,
    )
    console.log(
      JSON.stringify(
        {
          requests: outcome.stats.requests.total,
          assertions: outcome.stats.assertions.total,
          assertions_failed: outcome.stats.assertions.failed,
          prism_violations: violations.length,
          folder,
        },
        null,
        2,
      ),
    )
    for (const line of [...failures, ...violations].slice(0, 60)) console.log(line)
    process.exitCode = violations.length > 0 || failures.length > 0 ? 1 : 0
  } finally {
    prism?.kill('SIGTERM')
    await server.stop()
    if (keep < 0) rmSync(folder, { recursive: true, force: true })
  }
}

await main()
