import { useEffect, useState } from 'react'

/** `system` follows prefers-color-scheme; the others override it. */
export type ThemeChoice = 'system' | 'light' | 'dark'

const STORAGE_KEY = 'linkdesk.theme'
const CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark']

function savedChoice(): ThemeChoice {
  const saved = window.localStorage.getItem(STORAGE_KEY)
  return CHOICES.find((choice) => choice === saved) ?? 'system'
}

/** The theme choice, applied as `data-theme` on <html> (CSS reads it) and remembered in this browser. */
export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(savedChoice)
  useEffect(() => {
    const root = document.documentElement
    if (choice === 'system') root.removeAttribute('data-theme')
    else root.setAttribute('data-theme', choice)
    window.localStorage.setItem(STORAGE_KEY, choice)
  }, [choice])
  return [choice, setChoice]
}

export function nextTheme(choice: ThemeChoice): ThemeChoice {
  return CHOICES[(CHOICES.indexOf(choice) + 1) % CHOICES.length] ?? 'system'
}
