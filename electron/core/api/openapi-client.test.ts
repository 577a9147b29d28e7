import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, before, describe, test } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { typeErrors } from '../testing/type-errors'
import { linkedCoreFixture } from '../testing/linked-core'
import { eventually, TOKEN } from '../testing/messaging-harness'
import { waitFor, WebhookReceiver } from '../testing/webhook-receiver'

/**
 * The document as a client's author meets it: a typed client generated from it (openapi-typescript's types,
 * openapi-fetch's calls) drives the server, and every answer an operation gives is checked against the schema
 * the document declares for it.
 */

const ME = '15550610001'
const CAROL = '15550610002'
/** Dave's privacy refuses being added to groups: the network answers an invitation instead. */
const DAVE = '15550610003'
/** The quick start's contact, added through the generated client. */
const BOB = '15550610004'
const ROOT = resolve(import.meta.dirname, '../../..')

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

/** The README's quick start through the generated client: the sandbox's control routes included. */
const QUICK_START = `import createClient from 'openapi-fetch'
import type { paths } from './api'

const pause = () => new Promise((resolve) => setTimeout(resolve, 200))

/** Polls until \`found\` gives a value (the effect of a call arrives a moment later). */
async function until<T>(found: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const value = await found()
    if (value !== undefined) return value
    await pause()
  }
  throw new Error(\`no \${what}\`)
}

export async function quickStart(baseUrl: string, token: string, bob: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${token}\` } })
  const created = await client.POST('/create_instance', { body: { name: 'Demo' } })
  if (!created.data) throw new Error(JSON.stringify(created.error))
  const instanceId: string = created.data.instance_id
  const scanned = await client.POST('/sandbox_scan', { body: { instance_id: instanceId, phone: '15550611111' } })
  if (!scanned.data) throw new Error(JSON.stringify(scanned.error))
  const added = await client.POST('/sandbox/accounts', { body: { phone: bob, name: 'Bob', auto_reply: 'echo' } })
  if (!added.data) throw new Error(JSON.stringify(added.error))
  const sent = await client.POST('/send_message', {
    body: { instance_id: instanceId, number: bob, type: 'text', message: 'Hello Bob' },
  })
  if (!sent.data) throw new Error(JSON.stringify(sent.error))
  const messageId: string = sent.data.message.key.id
  const inBobsInbox = await until(async () => {
    const inbox = await client.GET('/sandbox/accounts/{phone}/messages', { params: { path: { phone: bob } } })
    return inbox.data?.messages.find((entry) => entry.id === messageId)
  }, "the message in Bob's inbox")
  const echo = await until(async () => {
    const events = await client.GET('/events', {
      params: { query: { instance_id: instanceId, event: 'message.received' } },
    })
    return events.data?.events.find((event) => JSON.stringify(event.data).includes('echo: Hello Bob'))
  }, 'the echo as message.received')
  return { instanceId, messageId, inboxText: inBobsInbox.text, echo: echo.data }
}
`

describe('the document against the running server', () => {
  const linked = linkedCoreFixture(ME, [
    // A Business account, so its labels answer too.
    { phone: ME, name: 'Front desk', business: true },
    { phone: CAROL, name: 'Carol' },
    { phone: DAVE, name: 'Dave', groupsAdd: 'contacts' },
  ])

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

    test('drives the quick start, the sandbox control included: Bob has the message, his echo is an event', async () => {
      writeFileSync(join(folder, 'api.ts'), astToString(await openapiTS(document)))
      writeFileSync(join(folder, 'quick-start.ts'), QUICK_START)
      assert.deepEqual(typeErrors([join(folder, 'quick-start.ts')]), [])
      const compiled = ts.transpileModule(QUICK_START, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      })
      writeFileSync(join(folder, 'quick-start.mjs'), compiled.outputText)
      const { quickStart } = await import(pathToFileURL(join(folder, 'quick-start.mjs')).href)
      const outcome = await quickStart(linked.core.apiBase, TOKEN, BOB)

      assert.equal(outcome.inboxText, 'Hello Bob')
      assert.equal(outcome.echo.text, 'echo: Hello Bob')
      // The effect on the other side, read from the network rather than through the API.
      const entry = linked.control.inbox(BOB).find((received) => received.id === outcome.messageId)
      assert.equal(entry?.text, 'Hello Bob')
      assert.equal(linked.control.accounts().find((account) => account.phone === BOB)?.autoReply, 'echo')
      assert.equal(linked.core.registry.find(outcome.instanceId)?.id, outcome.instanceId)
    })
  })

  describe('the answers of the running server', () => {
    const seen = new Set<string>()
    let dereferenced: any
    const ajv = new Ajv2020({ strict: true, validateFormats: false, allErrors: true })
    ajv.addKeyword('example')
    // `Event` names its variants for code generators; each variant's own `event` enum already tells them apart.
    ajv.addKeyword('discriminator')

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
    })

    test('the chat, contact and message operations answer as declared', async () => {
      const on = { instance_id: linked.instanceId }
      const to = { ...on, number: CAROL }
      const { id: fromCarol } = await linked.control.send(CAROL, { to: ME, text: 'Hello from Carol' })
      await linked.events.waitFor(
        (event) => event.event === 'message.received' && event.data.id === fromCarol,
        'Carol’s message',
      )
      const { chats } = await checked('chats', on)
      assert.ok(chats.some((chat: any) => chat.last_message.id === fromCarol))
      await checked('chats', to)
      const { messages } = await checked('chat_messages', to)
      assert.ok(messages.some((message: any) => message.id === fromCarol))
      const { contacts } = await checked('contacts', on)
      await checked('mute_chat', { ...to, duration: 3600 })
      for (const name of ['archive_chat', 'unarchive_chat', 'pin_chat', 'unpin_chat', 'unmute_chat'])
        await checked(name, to)
      await checked('mark_chat_unread', to)
      await checked('mark_chat_read', to)
      await checked('star_message', { ...on, message_id: fromCarol })
      await checked('unstar_message', { ...on, message_id: fromCarol })
      await checked('set_disappearing_timer', { ...to, timer: 86400 })
      await checked('set_disappearing_timer', { ...to, timer: 0 })
      const label = await checked('create_label', { ...on, name: 'Checked', color: 2 })
      const labelled = { label_id: label.id }
      await checked('edit_label', { ...on, ...labelled, name: 'Checked again' })
      await checked('labels', on)
      await checked('label_chat', { ...to, ...labelled })
      await checked('unlabel_chat', { ...to, ...labelled })
      await checked('label_message', { ...on, ...labelled, message_id: fromCarol })
      await checked('unlabel_message', { ...on, ...labelled, message_id: fromCarol })
      await checked('delete_label', { ...on, ...labelled })
      assert.ok(contacts.some((contact: any) => contact.phone === CAROL))
      const { numbers } = await checked('check_numbers', { ...on, numbers: [CAROL, '15550610099'] })
      assert.deepEqual(
        numbers.map((number: any) => number.exists),
        [true, false],
      )
      await checked('profile', to)
      await checked('blocked', on)
      assert.equal((await checked('mark_read', { ...on, message_ids: [fromCarol] })).read, 1)
      await checked('subscribe_presence', to)

      const sent = await checked('send_message', { ...to, type: 'text', message: 'To act on' })
      const target = { ...on, message_id: sent.message.key.id }
      await checked('react', { ...target, emoji: '👍' })
      await checked('edit_message', { ...target, message: 'Acted on' })
      await checked('forward_message', { ...target, number: CAROL })
      await checked('delete_message', target)
      const poll = await checked('send_poll', {
        ...to,
        question: 'Which day?',
        options: ['Monday', 'Tuesday'],
      })
      await eventually(
        () => linked.control.inbox(CAROL).find((entry) => entry.id === poll.message.key.id),
        Boolean,
        'the poll in Carol’s inbox',
      )

      await checked('set_call_rejection', { ...on, enable: false })
      const { id: callId } = linked.control.call(CAROL, { to: ME })
      await linked.events.waitFor(
        (event) => event.event === 'call.received' && event.data.id === callId,
        'Carol’s call',
      )
      await checked('reject_call', { ...on, call_id: callId })
      assert.equal(linked.control.calls(CAROL).find((call) => call.id === callId)?.status, 'rejected')

      await checked('privacy', on)
      const { privacy } = await checked('set_privacy', { ...on, last_seen: 'contacts' })
      assert.equal(privacy.last_seen, 'contacts')
      await checked('set_profile', { ...on, about: 'Checked' })

      const posted = await checked('post_status', {
        ...on,
        type: 'text',
        message: 'Checked',
        numbers: [CAROL],
      })
      assert.deepEqual(posted.recipients, [`${CAROL}@s.whatsapp.net`])
      await checked('update_instance', { ...on, ignore_status: false })
      const { id: statusId } = await linked.control.send(CAROL, { to: 'status@broadcast', text: 'Away' })
      await linked.events.waitFor(
        (event) => event.event === 'status.received' && event.data.id === statusId,
        'Carol’s status',
      )
      const { statuses } = await checked('statuses', on)
      assert.ok(statuses.some((status: any) => status.id === statusId))
      await checked('view_status', { ...on, status_id: statusId })
      await checked('update_instance', { ...on, ignore_status: true })
    })

    test('the chat clear and delete operations answer as declared', async () => {
      const on = { instance_id: linked.instanceId, number: DAVE }
      for (const name of ['clear_chat', 'delete_chat']) {
        const { id } = await linked.control.send(DAVE, { to: ME, text: `Before ${name}` })
        await linked.events.waitFor(
          (event) => event.event === 'message.received' && event.data.id === id,
          'Dave’s message',
        )
        assert.equal((await checked(name, on)).messages_removed >= 1, true)
      }
    })

    test('the group operations answer as declared', async () => {
      const on = { instance_id: linked.instanceId }
      const { group, not_added: notAdded } = await checked('create_group', {
        ...on,
        subject: 'Checked',
        participants: [CAROL, DAVE],
      })
      assert.deepEqual(
        notAdded.map((outcome: any) => [outcome.participant, outcome.result]),
        [[DAVE, 'invite_required']],
      )
      const at = { ...on, group_id: group.id }
      await checked('groups', on)
      await checked('group', at)
      await checked('group_participants', { ...at, action: 'promote', participants: [CAROL] })
      const { participants } = await checked('group_participants', {
        ...at,
        action: 'add',
        participants: [DAVE],
      })
      assert.equal(participants[0].result, 'invite_required')
      await linked.control.joinGroup(DAVE, participants[0].invite.code)
      assert.ok(linked.control.group(group.id).members.some((member) => member.phone === DAVE))
      await checked('update_group', { ...at, subject: 'Checked again' })
      const { code } = await checked('group_invite', at)
      await checked('group_invite_info', { ...on, code })
      await checked('leave_group', at)
      await checked('join_group', { ...on, code })
      assert.ok(linked.control.group(group.id).members.some((member) => member.phone === ME))
    })

    test('the community operations answer as declared', async () => {
      const on = { instance_id: linked.instanceId }
      const { community } = await checked('create_community', {
        ...on,
        subject: 'Checked community',
        participants: [CAROL],
      })
      const { group } = await checked('create_group', { ...on, subject: 'Linked', participants: [CAROL] })
      const link = { ...on, community_id: community.id, group_id: group.id }
      await checked('link_group', link)
      assert.equal(linked.control.group(group.id).linkedParent, community.id)
      await checked('communities', on)
      await checked('community', { ...on, community_id: community.id })
      await checked('unlink_group', link)
      assert.equal(linked.control.group(group.id).linkedParent, null)
    })

    test('the channel operations answer as declared', async () => {
      const on = { instance_id: linked.instanceId }
      const { channel: own } = await checked('create_channel', { ...on, name: 'Checked news' })
      await checked('post_channel', { ...on, channel_id: own.id, text: 'Checked post' })
      const carols = await linked.control.channels.create(CAROL, { name: 'Carol news' })
      await linked.control.channels.post(CAROL, carols.id, 'From Carol')
      await checked('follow_channel', { ...on, channel: carols.invite })
      await checked('channels', on)
      await checked('channel', { ...on, channel: carols.id })
      const { posts } = await checked('channel_posts', { ...on, channel_id: carols.id })
      await checked('react_channel', { ...on, channel_id: carols.id, post_id: posts[0].post_id, emoji: '👍' })
      assert.deepEqual(linked.control.channels.get(carols.id).posts[0]?.reactions, { [ME]: '👍' })
      await checked('unfollow_channel', { ...on, channel: carols.id })
    })

    test('the webhook, event, settings and admin operations answer as declared', async () => {
      const on = { instance_id: linked.instanceId }
      await checked('settings')
      const receiver = await WebhookReceiver.start()
      try {
        await checked('set_webhook', { ...on, webhook_url: receiver.url, enable: true })
        await checked('get_webhook', on)
        await checked('rotate_webhook_secret', on)
        const { event_id: testEvent } = await checked('send_test_event', on)
        const deliveredTimes = () =>
          receiver.received.filter((delivery) => delivery.event.event_id === testEvent).length
        await waitFor(() => deliveredTimes() === 1, 15_000, 'the test event at the webhook')
        await checked('events', on)
        // The receiver has its copy before the app records the outcome (on PostgreSQL the outcome rides on the
        // next write or the end of the worker's turn): wait for the recorded outcome itself.
        let outcome: unknown
        await waitFor(
          async () => {
            const { deliveries } = await checked('deliveries', { ...on, event_id: testEvent })
            outcome = deliveries[0]?.outcome
            return outcome !== undefined
          },
          15_000,
          'the test event delivery recorded',
        )
        assert.equal(outcome, 'delivered')
        await checked('redeliver', { ...on, event_id: testEvent })
        await waitFor(() => deliveredTimes() === 2, 15_000, 'the test event delivered again')
        await checked('redeliver_failed', on)
        await checked('set_webhook', { ...on, webhook_url: receiver.url, enable: false })
      } finally {
        await receiver.close()
      }

      const { webhook } = await checked('add_webhook', {
        ...on,
        url: 'http://127.0.0.1:9/added',
        enable: false,
      })
      await checked('webhooks', on)
      await checked('update_webhook', { webhook_id: webhook.webhook_id, events: ['message.*'] })
      await checked('remove_webhook', { webhook_id: webhook.webhook_id })
      // A sink is kept whether or not its broker answers now (what it could not publish waits in the outbox).
      const { sink } = await checked('add_sink', {
        ...on,
        kind: 'nats',
        url: 'nats://127.0.0.1:9',
        events: ['message.*'],
      })
      await checked('sinks', on)
      await checked('remove_sink', { sink_id: sink.sink_id })

      await checked('admin/tokens')
      const created = await checked('admin/tokens/create', {
        label: 'Checked',
        reach: 'chosen',
        scopes: ['read'],
        instance_ids: [linked.instanceId],
      })
      const token = { token_id: created.info.id }
      await checked('admin/tokens/label', { ...token, label: 'Checked again' })
      await checked('admin/tokens/access', {
        ...token,
        reach: 'chosen',
        scopes: ['read', 'send'],
        instance_ids: [linked.instanceId],
      })
      await checked('admin/instance_access', on)
      await checked('admin/set_instance_access', { ...on, token_ids: [created.info.id] })
      await checked('admin/tokens/revoke', token)
      await checked('admin/login', { token: TOKEN })
      await checked('admin/session', {
        code: new URL(linked.core.createLoginUrl()).hash.replace('#login=', ''),
      })
      await checked('admin/logout')

      const { instance_id: doomed } = await checked('create_instance', { name: 'Deleted' })
      await checked('delete_instance', { instance_id: doomed })
      assert.equal(linked.core.registry.find(doomed), undefined)
      const { instance_id: scanned } = await checked('create_instance', { name: 'Scanned' })
      await checked('sandbox_scan', { instance_id: scanned, phone: '15550610011', name: 'Scanner' })
      assert.equal(linked.core.registry.find(scanned)?.id, scanned)
    })

    test('every operation declares its answer, and each declared answer was checked against a real one', () => {
      // An operation answers GET and POST and reads a JSON, form or multipart body; the other routes do not.
      const answers = Object.entries(dereferenced.paths as Record<string, any>)
        .filter(
          ([path, item]) =>
            !path.startsWith('/sandbox/') &&
            item.get &&
            item.post?.requestBody?.content['application/x-www-form-urlencoded'],
        )
        .map(([path, item]) => [path.slice(1), item.post.responses['200'].content['application/json'].schema])
      const bare = answers
        .filter(([, schema]) => Object.keys(schema.properties ?? {}).length < 2)
        .map(([name]) => name)
      assert.deepEqual([...new Set(bare)], [])

      const declaring = [...new Set(answers.map(([name]) => name as string))]
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
