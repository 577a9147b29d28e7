import type { ReactNode } from 'react'
import './EmptyState.css'

/** What a screen shows when it has nothing yet, and what to do next. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="empty-state">
      <h2>{title}</h2>
      <div>{children}</div>
    </div>
  )
}
