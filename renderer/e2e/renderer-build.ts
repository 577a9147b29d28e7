import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'vite'
import { REPO_ROOT } from './headless-server'

const RENDERER = join(REPO_ROOT, 'renderer')
const BUILT_INDEX = join(RENDERER, 'dist', 'index.html')

function newestChange(path: string): number {
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))))
}

/** Builds renderer/dist (what the server serves at `/`) when it is missing or older than the UI's sources. */
export async function ensureRendererBuilt(): Promise<void> {
  const sources = [
    ...['src', 'public', 'index.html', 'vite.config.ts', 'build-defines.ts'].map((name) =>
      join(RENDERER, name),
    ),
    join(REPO_ROOT, 'electron', 'core', 'contract', 'event-catalogue.ts'),
    join(REPO_ROOT, 'electron', 'core', 'contract', 'kinds'),
  ]
  if (existsSync(BUILT_INDEX) && statSync(BUILT_INDEX).mtimeMs >= Math.max(...sources.map(newestChange)))
    return
  await build({ configFile: join(RENDERER, 'vite.config.ts'), logLevel: 'warn' })
}
