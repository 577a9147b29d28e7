import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { layers } from './eslint.layers.js'

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', 'renderer/dist', 'bench/.runs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Tests read JSON answers of many shapes; typing each one would only restate the assertions.
    files: ['**/*.test.ts', '**/testing/**/*.ts', 'renderer/e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Which zone may import which, packages included (README "Layout").
  layers,
  {
    // Tests and their helpers are outside the zones, but never bring Electron into the core.
    files: ['electron/core/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The core runs in plain Node: never import electron here.' }],
        },
      ],
    },
  },
  {
    // The sandbox package stands alone: plain Node, and nothing of the app it serves.
    files: ['packages/sandbox/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'The sandbox runs in plain Node: never import electron here.' },
          ],
          patterns: [
            {
              regex: '^(\\.\\./)+(electron|renderer|bench)/',
              message: 'The sandbox package imports nothing of the app; the app imports @linkdesk/sandbox.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    // The build configuration and the browser tests run in Node, not in the window: they may read the core.
    ignores: ['renderer/vite.config.ts', 'renderer/build-defines.ts', 'renderer/e2e/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+electron/(?!core/shared-types)',
              message: 'The renderer imports only shared type definitions from the core.',
            },
          ],
        },
      ],
    },
  },
)
