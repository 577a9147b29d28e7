import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, test } from 'node:test'
import { silentLogger } from '../logger'
import { BROWSER_USER_AGENT, BUNDLED_WA_VERSION, parseVersionDocument, WaVersionSource } from './wa-version'

const servers: Server[] = []
after(() => {
  for (const server of servers) {
    server.closeAllConnections()
    server.close()
  }
})

/** A loopback server answering every request with `answer`; counts the requests. */
async function serve(answer: (respond: (status: number, body: string) => void) => void) {
  let requests = 0
  const userAgents: (string | undefined)[] = []
  const server = createServer((request, response) => {
    requests += 1
    userAgents.push(request.headers['user-agent'])
    answer((status, body) => response.writeHead(status).end(body))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sw.js`,
    requests: () => requests,
    userAgents: () => userAgents,
  }
}

function source(url: string, timeoutMs = 2000) {
  return new WaVersionSource({ url, timeoutMs, logger: silentLogger() })
}

test('the client revision is read from the document, escaped inside a JSON string or plain', () => {
  assert.deepEqual(
    parseVersionDocument('self.__swData=JSON.parse("{\\"client_revision\\":1012345678,\\"x\\":1}")'),
    [2, 3000, 1012345678],
  )
  assert.deepEqual(parseVersionDocument('{"client_revision": 42}'), [2, 3000, 42])
  assert.equal(parseVersionDocument('<html>maintenance</html>'), undefined)
})

test('before a fetch and after failed ones the bundled version is used; a good document replaces it', async () => {
  let status = 503
  let body = 'down'
  const site = await serve((respond) => respond(status, body))
  const versions = source(site.url)
  assert.deepEqual(versions.current, BUNDLED_WA_VERSION)
  assert.deepEqual(versions.info(), {
    version: BUNDLED_WA_VERSION.join('.'),
    source: 'bundled',
    checked_at: null,
  })

  assert.deepEqual(await versions.refresh(), BUNDLED_WA_VERSION)
  assert.equal(versions.info().source, 'bundled')
  assert.ok(versions.info().checked_at, 'the attempt is recorded')
  status = 200
  assert.deepEqual(await versions.refresh(), BUNDLED_WA_VERSION, 'a page without a revision is refused')

  body = '{\\"client_revision\\":1099999999}'
  assert.deepEqual(await versions.refresh(), [2, 3000, 1099999999])
  assert.equal(versions.info().source, 'fetched')
  status = 500
  assert.deepEqual(await versions.refresh(), [2, 3000, 1099999999], 'the last fetched version stays')
  assert.equal(site.requests(), 4)
})

test('a document that never comes is given up after the timeout; concurrent refreshes share one fetch', async () => {
  const silent = await serve(() => undefined)
  const versions = source(silent.url, 200)
  const started = Date.now()
  const answers = await Promise.all([versions.refresh(), versions.refresh(), versions.refresh()])
  assert.ok(Date.now() - started < 1500, 'bounded by the timeout')
  assert.deepEqual(answers, [BUNDLED_WA_VERSION, BUNDLED_WA_VERSION, BUNDLED_WA_VERSION])
  assert.equal(silent.requests(), 1)
})

test('an empty URL never fetches', async () => {
  const versions = source('')
  assert.deepEqual(await versions.refresh(), BUNDLED_WA_VERSION)
  assert.equal(versions.info().source, 'bundled')
})

test('the version document is asked for with a desktop browser User-Agent, as WhatsApp Web expects', async () => {
  const site = await serve((respond) => respond(200, '{"client_revision": 1088888888}'))
  assert.deepEqual(await source(site.url).refresh(), [2, 3000, 1088888888])
  assert.deepEqual(site.userAgents(), [BROWSER_USER_AGENT])
  assert.match(BROWSER_USER_AGENT, /^Mozilla\/5\.0 \(.+\) .*Chrome\/\d+/)
})
