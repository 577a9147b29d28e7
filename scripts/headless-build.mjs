// Makes sure `out/headless/` (the compiled `serve`, `sandbox` and `copy-store`) is current, then exits: a
// missing build, or one older than its sources, is built once. Starting is separate (`node out/headless/…`), so
// two starts from one checkout (a node and a sandbox, two cluster nodes) never build over each other: the build
// is made under a lock (a second start waits for the first build, then finds it current), into a folder of its
// own, and moved into place by renames, so a start never reads a half-written build.
// `--force` builds even when the build is current (`npm run build:server`).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

const root = resolve(import.meta.dirname, '..')
const out = join(root, 'out')
const target = join(out, 'headless')
const lock = join(out, '.headless-build.lock')
/** In the build: when its build started; a source changed after that makes it stale. */
const STARTED_FILE = '.build-started'
/** What the build is made from (the vite config's entries and what they import), tests left out. */
const SOURCES = [
  'electron/core',
  'electron/headless',
  'packages/sandbox/src',
  'packages/sandbox/package.json',
  'bench',
  'headless.vite.config.ts',
  'package.json',
  'package-lock.json',
]
const SKIPPED = new Set(['node_modules', '.runs'])
const LOCK_POLL_MS = 100

/** The newest modification time among the files under `path`. */
function newestMtime(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return path.endsWith('.test.ts') ? 0 : stat.mtimeMs
  let newest = 0
  for (const name of readdirSync(path)) {
    if (!SKIPPED.has(name)) newest = Math.max(newest, newestMtime(join(path, name)))
  }
  return newest
}

function isCurrent() {
  let started
  try {
    started = Number(readFileSync(join(target, STARTED_FILE), 'utf8'))
  } catch {
    return false
  }
  return SOURCES.every((source) => newestMtime(join(root, source)) <= started)
}

function holderAlive() {
  try {
    process.kill(Number(readFileSync(join(lock, 'pid'), 'utf8')), 0)
    return true
  } catch (error) {
    // EPERM: the pid exists (another user's process). No pid file yet: the holder is just writing it.
    return error.code === 'EPERM' || error.code === 'ENOENT'
  }
}

/** Takes the build lock, waiting while another process holds it; a lock whose process is gone is taken over. */
async function acquireLock() {
  mkdirSync(out, { recursive: true })
  for (;;) {
    try {
      mkdirSync(lock)
      writeFileSync(join(lock, 'pid'), String(process.pid))
      return
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
    }
    if (!holderAlive()) rmSync(lock, { recursive: true, force: true })
    else await sleep(LOCK_POLL_MS)
  }
}

async function build() {
  process.stderr.write('building out/headless (its sources changed, or there was none)\n')
  const started = Date.now()
  // What a build killed half-way left behind (this process holds the lock: no other build is under way).
  for (const name of readdirSync(out)) {
    if (/^\.headless-(previous-)?\d+$/.test(name)) rmSync(join(out, name), { recursive: true, force: true })
  }
  const staging = join(out, `.headless-${process.pid}`)
  const { build: viteBuild } = await import('vite')
  await viteBuild({
    configFile: join(root, 'headless.vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: staging },
  })
  writeFileSync(join(staging, STARTED_FILE), String(started))
  // The previous build leaves by a rename too: no start ever sees a folder being deleted.
  const previous = join(out, `.headless-previous-${process.pid}`)
  let replaced = false
  try {
    renameSync(target, previous)
    replaced = true
  } catch (error) {
    if (error.code !== 'ENOENT') throw error
  }
  renameSync(staging, target)
  if (replaced) rmSync(previous, { recursive: true, force: true })
}

const force = process.argv.includes('--force')
if (force || !isCurrent()) {
  await acquireLock()
  try {
    // Another start may have built while this one waited for the lock.
    if (force || !isCurrent()) await build()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
