// Summarises a V8 .cpuprofile (from --cpu-prof, e.g. BENCH_PROFILE_APP=1): self time by function and by package.
//
//   npx tsx bench/profile-summary.ts bench/.runs/profiles/<file>.cpuprofile [top]
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: number[]
}

const [path, topArg] = process.argv.slice(2)
if (!path) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top]')
const profile = JSON.parse(readFileSync(path, 'utf8')) as { nodes: ProfileNode[]; samples: number[] }
const total = profile.samples.length
const byFunction = new Map<string, number>()
const byPackage = new Map<string, number>()
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0
  if (hits === 0) continue
  const { functionName, url, lineNumber } = node.callFrame
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/work\/main\//, '')
  const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`
  byFunction.set(key, (byFunction.get(key) ?? 0) + hits)
  const pkg =
    /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ??
    (file.startsWith('electron/') ? file.split('/').slice(0, 3).join('/') : file || functionName)
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + hits)
}
const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`)
  for (const [key, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25)))
    process.stdout.write(`${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}\n`)
}
// Inclusive time of Linkdesk's own functions (electron/…): where the core spends, callees included.
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
const inclusive = new Map<string, number>()
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0
  if (hits === 0) continue
  const seen = new Set<string>()
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const { functionName, url, lineNumber } = nodes.get(id)?.callFrame ?? {
      functionName: '',
      url: '',
      lineNumber: 0,
    }
    const file = url.replace(/^file:\/\//, '').replace(/^.*\/work\/main\//, '')
    if (!file.startsWith('electron/')) continue
    const key = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`
    if (seen.has(key)) continue
    seen.add(key)
    inclusive.set(key, (inclusive.get(key) ?? 0) + hits)
  }
}
show('self time by package or core folder', byPackage)
show('inclusive time of electron/ functions', inclusive)
show('self time by function', byFunction)
