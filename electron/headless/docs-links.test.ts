import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import { REPO_ROOT } from '../../renderer/e2e/headless-server'

// The README is an overview whose reference pages are in docs/: every relative link between them (and to the
// repository's files) must lead somewhere, anchors included.

const PAGES = [
  'README.md',
  'packages/sandbox/README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** GitHub's anchor of a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-')
}

function anchorsOf(page: string): Set<string> {
  const anchors = new Set<string>()
  let inCode = false
  for (const line of readFileSync(join(REPO_ROOT, page), 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode
    const heading = /^#{1,6} (.*)/.exec(line)
    if (!inCode && heading) anchors.add(slug(heading[1]!))
  }
  return anchors
}

test('every relative link of the README and the docs pages leads to a file and heading that exist', () => {
  const broken: string[] = []
  let checked = 0
  for (const page of PAGES) {
    const text = readFileSync(join(REPO_ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue
      checked += 1
      const [path, anchor] = target!.split('#')
      const file = path ? join(REPO_ROOT, dirname(page), path) : join(REPO_ROOT, page)
      if (!existsSync(file)) broken.push(`${page}: ${target} (no such file)`)
      else if (anchor && file.endsWith('.md') && !anchorsOf(relative(REPO_ROOT, file)).has(anchor))
        broken.push(`${page}: ${target} (no such heading)`)
    }
  }
  assert.deepEqual(broken, [])
  assert.ok(checked > 50, `links were found (${checked})`)
})

test('the README is an overview, under 600 lines, opening with the quick start', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
  assert.ok(readme.split('\n').length < 600, 'README.md under 600 lines')
  const firstSection = /\n## (.*)/.exec(readme)?.[1]
  assert.equal(firstSection, 'Quick start')
})
