import { type ChildProcess, spawn } from 'node:child_process'
import { ok, TOKEN } from './instance-harness'

/** A headless app in a process of its own, and its API base. */
export interface Served {
  child: ChildProcess
  api: string
}

/**
 * Starts the headless app (`command` with `args`) with the test token, in its own process group so a crash
 * can be staged; answers its API base once it prints it.
 */
export function serveProcess(command: string, args: string[], cwd?: string): Promise<Served> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, LINKDESK_ACCESS_TOKEN: TOKEN },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /api: (\S+)/.exec(out)
      if (match?.[1]) resolve({ child, api: match[1] })
    })
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)))
  })
}

/** Kills the whole process group with SIGKILL, as a crash would, and waits for it to be gone. */
export function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    process.kill(-child.pid!, 'SIGKILL')
  })
}

/** Polls the instance operation until its state is `state` (the server is another process). */
export async function waitForState(
  api: string,
  instanceId: string,
  state: string,
  timeoutMs = 30_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const { instance } = await ok(api, 'instance', { instance_id: instanceId })
    if (instance.state === state) return instance
    if (Date.now() > deadline) throw new Error(`${instanceId} still ${instance.state} (${instance.cause})`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
