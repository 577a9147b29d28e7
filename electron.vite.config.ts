import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'
import { RENDERER_DEFINES } from './renderer/build-defines'

const root = import.meta.dirname

/**
 * The desktop build: main (ESM, with the core and the sandbox package bundled in and every other npm
 * dependency left external, so Baileys, lmdb's native binaries and fastify load from node_modules), the
 * preload (CommonJS: sandboxed preloads cannot be ES modules) and the renderer (the same UI the headless
 * server serves).
 */
export default defineConfig({
  main: {
    build: {
      // The sandbox package ships TypeScript sources: it is bundled in like the core, its own dependencies not.
      externalizeDeps: { exclude: ['@linkdesk/sandbox'] },
      outDir: resolve(root, 'out/main'),
      lib: {
        entry: {
          index: resolve(root, 'electron/main/index.ts'),
          // The webhook delivery thread, started by the core from the file beside its chunk (delivery-threads.ts).
          'delivery-thread': resolve(root, 'electron/core/events/delivery-thread.ts'),
        },
        formats: ['es'],
      },
      rolldownOptions: { output: { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' } },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      lib: { entry: resolve(root, 'electron/preload/index.ts'), formats: ['cjs'] },
      rolldownOptions: { output: { entryFileNames: 'index.cjs' } },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    base: './',
    plugins: [react()],
    define: RENDERER_DEFINES,
    build: {
      outDir: resolve(root, 'out/renderer'),
      minify: true,
      rolldownOptions: { input: resolve(root, 'renderer/index.html') },
    },
    server: {
      proxy: { '/api': `http://127.0.0.1:${process.env.LINKDESK_PORT ?? '8686'}` },
    },
  },
})
