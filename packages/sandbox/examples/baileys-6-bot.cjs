// A small bot on the `baileys` package (the 6.x line), written as for WhatsApp: nothing in it names the
// sandbox. Started with the sandbox's preload it links to the sandbox instead:
//
//   LINKDESK_SANDBOX_CONTROL=http://127.0.0.1:7000/sandbox \
//     node --import @linkdesk/sandbox/preload baileys-6-bot.cjs ./auth 15550000002
//
// It prints each QR (`qr <text>`), says hello to the number given once linked (`sent <id>`), and prints what
// it receives (`received <from> <text>`).
/* global require */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS program, as Baileys 6 programs are */
const { default: makeWASocket, DisconnectReason, useMultiFileAuthState } = require('baileys')
const pino = require('pino')

const [authDir, friend] = process.argv.slice(2)

async function connect() {
  const { state, saveCreds } = await useMultiFileAuthState(authDir)
  const sock = makeWASocket({ auth: state, logger: pino({ level: 'silent' }) })
  sock.ev.on('creds.update', saveCreds)
  sock.ev.on('connection.update', async ({ qr, connection, lastDisconnect }) => {
    if (qr) console.log(`qr ${qr}`)
    if (connection === 'close') {
      // After the QR is scanned the server restarts the stream (515); any close but a logout reconnects.
      if (lastDisconnect?.error?.output?.statusCode !== DisconnectReason.loggedOut) connect()
      else process.exit(1)
    }
    if (connection === 'open') {
      const sent = await sock.sendMessage(`${friend}@s.whatsapp.net`, { text: 'hello from baileys 6' })
      console.log(`sent ${sent.key.id}`)
    }
  })
  sock.ev.on('messages.upsert', ({ messages, type }) => {
    for (const message of messages) {
      const text = message.message?.conversation ?? message.message?.extendedTextMessage?.text
      if (type === 'notify' && !message.key.fromMe && text)
        console.log(`received ${message.key.remoteJid} ${text}`)
    }
  })
}
connect()
