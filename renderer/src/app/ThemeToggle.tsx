import { nextTheme, useTheme } from './theme'
import './ThemeToggle.css'

const LABELS = { system: 'System', light: 'Light', dark: 'Dark' } as const

/** Cycles the theme: system → light → dark. */
export function ThemeToggle() {
  const [theme, setTheme] = useTheme()
  return (
    <button type="button" className="theme-toggle" onClick={() => setTheme(nextTheme(theme))}>
      Theme: {LABELS[theme]}
      <span className="visually-hidden">, switch to {LABELS[nextTheme(theme)]}</span>
    </button>
  )
}
