import { createServer as createHttpServer } from 'node:http'
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net'

/** A proxy running on this machine for a test: where it listens, and every tunnel it opened. */
export interface LocalProxy {
  readonly port: number
  /** `host:port` of each tunnel, in order. */
  readonly tunnels: string[]
  close(): Promise<void>
}

function tunnel(
  client: Socket,
  host: string,
  port: number,
  ready: () => void,
  sockets: Set<Socket>,
  head: Buffer = Buffer.alloc(0),
): void {
  const upstream = connect(port, host, () => {
    ready()
    if (head.length > 0) upstream.write(head)
    upstream.pipe(client)
    client.pipe(upstream)
  })
  sockets.add(upstream)
  upstream.on('close', () => sockets.delete(upstream))
  upstream.on('error', () => client.destroy())
  client.on('error', () => upstream.destroy())
  client.on('close', () => upstream.destroy())
}

function listening(server: Server, sockets: Set<Socket>, tunnels: string[]): Promise<LocalProxy> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        tunnels,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          }),
      }),
    )
  })
}

/** An HTTP CONNECT proxy; with `auth` (`user:password`) it asks for it (407 otherwise). */
export function startHttpProxy(auth?: string): Promise<LocalProxy> {
  const tunnels: string[] = []
  const sockets = new Set<Socket>()
  const server = createHttpServer((_request, response) => response.writeHead(405).end())
  server.on('connect', (request, client: Socket, head: Buffer) => {
    const expected = auth ? `Basic ${Buffer.from(auth).toString('base64')}` : undefined
    if (expected && request.headers['proxy-authorization'] !== expected) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n')
      return
    }
    const [host = '', port = ''] = (request.url ?? '').split(/:(?=\d+$)/)
    tunnels.push(`${host}:${port}`)
    tunnel(
      client,
      host,
      Number(port),
      () => client.write('HTTP/1.1 200 Connection Established\r\n\r\n'),
      sockets,
      head,
    )
  })
  return listening(server, sockets, tunnels)
}

/** A SOCKS5 proxy (RFC 1928), with username/password authentication (RFC 1929) when `auth` is given. */
export function startSocksProxy(auth?: { user: string; password: string }): Promise<LocalProxy> {
  const tunnels: string[] = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    let buffered = Buffer.alloc(0)
    let step: 'greeting' | 'auth' | 'request' = 'greeting'
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (step === 'greeting' && buffered.length >= 2 && buffered.length >= 2 + (buffered[1] ?? 0)) {
        const methods = buffered.subarray(2, 2 + (buffered[1] ?? 0))
        buffered = buffered.subarray(2 + (buffered[1] ?? 0))
        const method = auth ? 2 : 0
        if (!methods.includes(method)) return client.end(Buffer.from([5, 0xff]))
        client.write(Buffer.from([5, method]))
        step = auth ? 'auth' : 'request'
      }
      if (step === 'auth' && buffered.length >= 2) {
        const userLength = buffered[1] ?? 0
        const passwordLength = buffered[2 + userLength]
        if (passwordLength === undefined || buffered.length < 3 + userLength + passwordLength) return
        const user = buffered.subarray(2, 2 + userLength).toString()
        const password = buffered.subarray(3 + userLength, 3 + userLength + passwordLength).toString()
        buffered = buffered.subarray(3 + userLength + passwordLength)
        if (user !== auth?.user || password !== auth?.password) return client.end(Buffer.from([1, 1]))
        client.write(Buffer.from([1, 0]))
        step = 'request'
      }
      if (step === 'request' && buffered.length >= 5) {
        const type = buffered[3]
        const length = type === 1 ? 4 : type === 4 ? 16 : 1 + (buffered[4] ?? 0)
        if (buffered.length < 4 + length + 2) return
        const address = buffered.subarray(4, 4 + length)
        const host = type === 1 ? [...address].join('.') : type === 3 ? address.subarray(1).toString() : ''
        const port = buffered.readUInt16BE(4 + length)
        client.off('data', onData)
        tunnels.push(`${host}:${port}`)
        const rest = buffered.subarray(4 + length + 2)
        tunnel(
          client,
          host,
          port,
          () => client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0])),
          sockets,
          rest,
        )
      }
    }
    client.on('data', onData)
    client.on('error', () => client.destroy())
  })
  return listening(server, sockets, tunnels)
}
