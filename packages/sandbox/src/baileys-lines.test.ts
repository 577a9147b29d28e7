import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent as HttpsAgent } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import pino from 'pino'
import { Agent as UndiciAgent, buildConnector } from 'undici'
import type { Sandbox } from './index'
import { inboxEntry, startTestSandbox } from './testing/sandbox-fixture'
import { solidPng } from './testing/solid-png'

// Every Baileys line people install links to the sandbox, sends and receives text and media, and reconnects
// from its saved keys, as on WhatsApp: each line as its own npm package, set up as its README says.
const LINKS = 20
const ANN = '15550830000'
const annJid = `${ANN}@s.whatsapp.net`

/** The parts of a Baileys line this test uses (their shapes are the same across the lines). */
interface BaileysLine {
  default: (config: Record<string, unknown>) => LineSocket
  WA_CERT_DETAILS: { PUBLIC_KEY: Uint8Array }
  useMultiFileAuthState(folder: string): Promise<{ state: unknown; saveCreds: () => Promise<void> }>
  downloadMediaMessage(message: unknown, type: 'buffer', options: Record<string, unknown>): Promise<Buffer>
}

interface LineSocket {
  ev: { on(event: string, listener: (value: any) => void): void }
  sendMessage(
    jid: string,
    content: Record<string, unknown>,
  ): Promise<{ key: { id?: string | null } } | undefined>
  end(error: Error | undefined): void
}

interface Line {
  name: string
  /** Why this line cannot run here yet. */
  skip?: string
  load(): Promise<BaileysLine>
  /** The socket config's media trust for this line (uploads), and the options a download of a message takes. */
  media(ca: string): {
    fetchAgent: unknown
    download(message: any): Record<string, unknown>
    close(): void
  }
}

/** The host and port of the media host a message's file is on (its `url`, as the sandbox wrote it). */
function mediaHostOf(message: any): URL {
  const content = message.message?.imageMessage ?? message.message?.documentMessage
  return new URL(String(content?.url))
}

/**
 * An undici Agent that trusts the media host's certificate and takes every request to the media host, whatever
 * host the URL names: 7.0.0-rc.6 downloads from mmg.whatsapp.net by the file's path, never from its `url`.
 */
function mediaHostAgent(ca: string, host: URL): UndiciAgent {
  const connector = buildConnector({ ca })
  return new UndiciAgent({
    connect: (options, callback) =>
      connector(
        { ...options, hostname: host.hostname, host: host.host, port: host.port, servername: undefined },
        callback,
      ),
  })
}

/** The lines of the sandbox README's "Baileys lines" table. */
const LINES: Line[] = [
  {
    // The `latest` tag of @whiskeysockets/baileys (and the `baileys` package): uploads and downloads with axios.
    name: '6.17.16 (latest)',
    load: () => import('baileys') as Promise<unknown> as Promise<BaileysLine>,
    media(ca) {
      const agent = new HttpsAgent({ ca })
      return {
        fetchAgent: agent,
        download: () => ({ options: { httpsAgent: agent } }),
        close: () => agent.destroy(),
      }
    },
  },
  {
    // Uploads and downloads with undici (fetch): the media host's certificate goes through an undici Agent.
    name: '7.0.0-rc.6',
    // Links, sends and receives here, but after the 515 restart that follows a link it acknowledges a stanza on
    // the closed socket and leaves that write's rejection ("Connection Closed", 428) unhandled, which fails the
    // test run; see the sandbox README's "Baileys lines".
    skip: 'rc.6 leaves an acknowledgement on the closed socket unhandled after the link’s 515 restart',
    load: () => import('baileys-rc6') as Promise<unknown> as Promise<BaileysLine>,
    media(ca) {
      const agents = [new UndiciAgent({ connect: { ca } })]
      return {
        fetchAgent: agents[0],
        download(message) {
          const agent = mediaHostAgent(ca, mediaHostOf(message))
          agents.push(agent)
          return { options: { dispatcher: agent } }
        },
        close: () => agents.forEach((agent) => void agent.close()),
      }
    },
  },
  {
    // Uploads with node:https (an https.Agent), downloads with undici (a dispatcher).
    name: '7.0.0-rc14',
    load: () => import('@whiskeysockets/baileys') as Promise<unknown> as Promise<BaileysLine>,
    media(ca) {
      const upload = new HttpsAgent({ ca })
      const download = new UndiciAgent({ connect: { ca } })
      return {
        fetchAgent: upload,
        download: () => ({ options: { dispatcher: download } }),
        close() {
          upload.destroy()
          void download.close()
        },
      }
    },
  },
]

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** One device of a line: its socket, started again after the 515 restart the link asks for, and what it got. */
class LineDevice {
  readonly changed = new EventEmitter()
  readonly received = new Map<string, any>()
  qrs: string[] = []
  opens = 0
  sock: LineSocket | undefined
  private stopped = false
  /** The saved keys' writes, in order. */
  private saving: Promise<void> = Promise.resolve()
  closes = 0

  constructor(
    private readonly baileys: BaileysLine,
    private readonly config: Record<string, unknown>,
    private readonly auth: { state: unknown; saveCreds: () => Promise<void> },
  ) {
    this.changed.setMaxListeners(50)
  }

  start(): this {
    const sock = this.baileys.default({ ...this.config, auth: this.auth.state })
    this.sock = sock
    const changed = () => this.changed.emit('change')
    sock.ev.on('creds.update', () => {
      if (!this.stopped) this.saving = this.saving.then(() => this.auth.saveCreds())
    })
    sock.ev.on('connection.update', (update: { qr?: string; connection?: string }) => {
      if (update.qr) this.qrs.push(update.qr)
      if (update.connection === 'open') this.opens++
      if (update.connection === 'close') this.closes++
      if (update.connection === 'close' && !this.stopped) setImmediate(() => this.start())
      changed()
    })
    sock.ev.on('messages.upsert', ({ messages }: { messages: any[] }) => {
      for (const message of messages) if (message.key?.id) this.received.set(message.key.id, message)
      changed()
    })
    return this
  }

  waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 30_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const value = check()
        if (value === undefined || value === false) return
        cleanup()
        resolve(value)
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.changed.off('change', attempt)
      }
      this.changed.on('change', attempt)
      attempt()
    })
  }

  /** Ends the socket for good; resolves once it closed and its keys are saved. */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    const closes = this.closes
    // A line still acknowledging what just arrived fails that write unhandled once its socket is gone (rc.6
    // does): a moment for those first, as a person closing the app would give it.
    await new Promise((resolve) => setTimeout(resolve, 300))
    this.sock?.end(undefined)
    await this.waitFor(() => this.closes > closes, 'the socket closed', 10_000).catch(() => undefined)
    await this.saving
  }
}

for (const line of LINES.filter(({ name }) => !process.env.LINES || name.includes(process.env.LINES))) {
  describe(`Baileys ${line.name} on the sandbox`, { skip: line.skip }, () => {
    let sandbox: Sandbox
    let baileys: BaileysLine

    before(async () => {
      sandbox = await startTestSandbox()
      baileys = await line.load()
      // Each line is its own copy of Baileys, with its own process-wide root key.
      baileys.WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(sandbox.endpoint.rootPublicKey)
      await sandbox.control.addAccount({ phone: ANN, name: 'Ann' })
    })
    after(async () => {
      await sandbox?.close()
    })

    test(`${LINKS} links in a row each link by QR, send and receive text and an image, and reconnect from saved keys`, async () => {
      for (let n = 0; n < LINKS; n++) {
        const phone = `1555084${LINES.indexOf(line)}${String(n).padStart(3, '0')}`
        const folder = mkdtempSync(join(tmpdir(), 'linkdesk-baileys-line-'))
        const media = line.media(sandbox.endpoint.mediaCaPem)
        const config = {
          waWebSocketUrl: sandbox.endpoint.wsUrl,
          logger: pino({ level: 'silent' }),
          fetchAgent: media.fetchAgent,
          markOnlineOnConnect: false,
          qrTimeout: 20_000,
        }
        let device: LineDevice | undefined
        try {
          await sandbox.control.addAccount({ phone, name: `Line ${n}` })
          device = new LineDevice(baileys, config, await baileys.useMultiFileAuthState(folder)).start()
          const linking = device
          const qr = await linking.waitFor(() => linking.qrs[0], `link ${n}: a QR`)
          await sandbox.control.link({ qr, phone, name: `Line ${n}` })
          await linking.waitFor(() => linking.opens > 0, `link ${n}: open`)

          const text = await linking.sock!.sendMessage(annJid, { text: `hello ${n}` })
          assert.equal((await inboxEntry(sandbox, ANN, text?.key.id ?? '', 30_000)).text, `hello ${n}`)
          const image = solidPng(16, 16, [n * 10, 40, 200])
          const sentImage = await linking.sock!.sendMessage(annJid, { image, caption: `image ${n}` })
          const entry = await inboxEntry(sandbox, ANN, sentImage?.key.id ?? '', 30_000)
          assert.deepEqual([entry.type, entry.caption, entry.sha256], ['image', `image ${n}`, sha256(image)])

          const reply = await sandbox.control.send(ANN, { to: phone, text: `hi ${n}` })
          const got = await linking.waitFor(() => linking.received.get(reply.id), `link ${n}: Ann's text`)
          const body = got.message?.conversation ?? got.message?.extendedTextMessage?.text
          assert.equal(body, `hi ${n}`)
          const picture = solidPng(16, 16, [200, n * 10, 40])
          const photo = await sandbox.control.send(ANN, {
            to: phone,
            media: { data: picture, mimetype: 'image/png', caption: `photo ${n}` },
          })
          const gotPhoto = await linking.waitFor(
            () => linking.received.get(photo.id),
            `link ${n}: Ann's image`,
          )
          const bytes = await baileys.downloadMediaMessage(gotPhoto, 'buffer', media.download(gotPhoto))
          assert.equal(sha256(bytes), sha256(picture), `link ${n}: the image downloads byte-identical`)
          await linking.stop()

          // Started again from the keys it saved: logged in without a QR.
          device = new LineDevice(baileys, config, await baileys.useMultiFileAuthState(folder)).start()
          const again = device
          await again.waitFor(() => again.opens > 0, `link ${n}: open from saved keys`)
          assert.equal(again.qrs.length, 0, 'no QR from saved keys')
          const back = await again.sock!.sendMessage(annJid, { text: `back ${n}` })
          assert.equal((await inboxEntry(sandbox, ANN, back?.key.id ?? '', 30_000)).text, `back ${n}`)
          const answer = await sandbox.control.send(ANN, { to: phone, text: `welcome back ${n}` })
          await again.waitFor(() => again.received.get(answer.id), `link ${n}: Ann's text after reconnecting`)
        } finally {
          await device?.stop()
          media.close()
          rmSync(folder, { recursive: true, force: true })
        }
      }
    })
  })
}
