import { createServer } from 'node:net'

/**
 * The reason a system server a test needs is missing, to skip with — or, under CI (which installs every such
 * server), a failure: a missing server is never a silent skip there.
 */
export function missingServer(reason: string): string {
  if (process.env.CI) throw new Error(`${reason}: CI installs it, so its absence is a failure`)
  return reason
}

/** A TCP port on 127.0.0.1 that was free a moment ago, for a server the test starts. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
