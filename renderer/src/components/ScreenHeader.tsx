import type { ReactNode } from 'react'
import './ScreenHeader.css'

interface ScreenHeaderProps {
  /** The heading's id: the screen's section is labelled by it, and focus lands on it when the screen opens. */
  id: string
  title: ReactNode
  /** Shown before the title (an avatar). */
  leading?: ReactNode
  /** Shown after the title: a status badge or the screen's main action. */
  children?: ReactNode
  /** One sentence under the heading on what the screen is for. */
  lead?: ReactNode
}

/** The top of every screen: its one h1, what sits beside it, and its lead sentence. */
export function ScreenHeader({ id, title, leading, children, lead }: ScreenHeaderProps) {
  return (
    <>
      <div className="screen-header">
        {leading}
        <h1 id={id} tabIndex={-1}>
          {title}
        </h1>
        {children}
      </div>
      {lead ? <p className="lead">{lead}</p> : null}
    </>
  )
}
