// Runs every *.test.ts under electron/, packages/, renderer/ and bench/ (or the files and folders given) with
// node's test runner.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const roots = ['electron', 'packages', 'renderer', 'bench']
const skip = new Set(['node_modules', 'dist', 'out'])

function findTests(dir) {
  let found = []
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found = found.concat(findTests(path))
    else if (name.endsWith('.test.ts')) found.push(path)
  }
  return found
}

// Arguments are test files or folders (every test under them).
const given = process.argv
  .slice(2)
  .flatMap((path) => (statSync(path).isDirectory() ? findTests(path) : [path]))
const files = given.length > 0 ? given.sort() : roots.flatMap((r) => findTests(r)).sort()
const result = spawnSync(
  process.execPath,
  // Baileys leaves long timers armed after a socket ends (a 30 s pre-key upload timer among them): once every
  // test has finished, exit instead of waiting for them.
  [
    '--import',
    'tsx',
    '--import',
    './scripts/renderer-defines.mjs',
    '--test',
    '--test-force-exit',
    '--test-concurrency=2',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
