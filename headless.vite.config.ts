import { cpSync } from 'node:fs'
import { resolve } from 'node:path'
import { defineConfig } from 'vite'

const root = import.meta.dirname

/**
 * The headless server and the standalone sandbox as compiled JavaScript (as the desktop app's main process
 * is): ESM for Node, the core and the sandbox package bundled in, every other npm dependency left external
 * (Baileys, lmdb's native binaries, fastify load from node_modules). `out/headless/` sits as deep as
 * `electron/headless/`, so the entries' paths to `renderer/dist` and `package.json` hold in both.
 * `scripts/headless-build.mjs` builds it into a folder beside it (as deep) and renames that into place.
 */
export default defineConfig({
  plugins: [
    {
      // The PostgreSQL schema's migrations are read from a folder at run time, beside the compiled code.
      name: 'postgres-migrations',
      writeBundle(options) {
        const from = resolve(root, 'electron/core/store/postgres/migrations')
        cpSync(from, resolve(options.dir ?? resolve(root, 'out/headless'), 'migrations'), { recursive: true })
      },
    },
  ],
  // The sandbox package ships TypeScript sources: bundled in like the core, its own dependencies left external.
  ssr: { noExternal: ['@linkdesk/sandbox'] },
  build: {
    ssr: true,
    outDir: resolve(root, 'out/headless'),
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    minify: false,
    rolldownOptions: {
      input: {
        serve: resolve(root, 'electron/headless/serve.ts'),
        sandbox: resolve(root, 'packages/sandbox/src/cli.ts'),
        'copy-store': resolve(root, 'electron/headless/copy-store.ts'),
        backup: resolve(root, 'electron/headless/backup.ts'),
        restore: resolve(root, 'electron/headless/restore.ts'),
        'mcp-stdio': resolve(root, 'electron/headless/mcp-stdio.ts'),
        // The webhook delivery thread, started by the core from the file beside its chunk (delivery-threads.ts).
        'delivery-thread': resolve(root, 'electron/core/events/delivery-thread.ts'),
        // The bench runs the app as `npm run serve` does, plus its memory-report hook.
        'bench-app': resolve(root, 'bench/harness/app-launcher.ts'),
        // Raw Baileys (and the reference server) for the bench's side-by-side figures, compiled the same way.
        'raw-worker': resolve(root, 'bench/raw/raw-worker.ts'),
      },
      // Chunks beside the entries: their paths relative to the repository hold as the sources' do.
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
    },
  },
})
