import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react'
import { visibleRange } from './virtual-range'
import './VirtualList.css'

interface VirtualListProps {
  label: string
  count: number
  rowHeight: number
  /** The option's stable id for the row at `index`. */
  rowId(index: number): string
  renderRow(index: number): ReactNode
  selected: number | null
  onSelect(index: number): void
}

/**
 * A listbox that renders only the rows in view, so 100,000 entries scroll as smoothly as 100. Keyboard:
 * arrows, Page Up/Down, Home and End move the selection; the selected row is announced by aria-activedescendant.
 */
export function VirtualList({
  label,
  count,
  rowHeight,
  rowId,
  renderRow,
  selected,
  onSelect,
}: VirtualListProps) {
  const viewport = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(480)
  useEffect(() => {
    const element = viewport.current
    if (!element) return
    const observer = new ResizeObserver(() => setHeight(element.clientHeight))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  const { start, end } = visibleRange(scrollTop, height, rowHeight, count)
  const page = Math.max(1, Math.floor(height / rowHeight) - 1)

  const move = (index: number) => {
    const next = Math.max(0, Math.min(count - 1, index))
    onSelect(next)
    const element = viewport.current
    if (!element) return
    const top = next * rowHeight
    if (top < element.scrollTop) element.scrollTop = top
    else if (top + rowHeight > element.scrollTop + element.clientHeight)
      element.scrollTop = top + rowHeight - element.clientHeight
  }
  const keys: Record<string, () => void> = {
    ArrowDown: () => move((selected ?? -1) + 1),
    ArrowUp: () => move((selected ?? 1) - 1),
    PageDown: () => move((selected ?? 0) + page),
    PageUp: () => move((selected ?? 0) - page),
    Home: () => move(0),
    End: () => move(count - 1),
  }
  const onKeyDown = (event: KeyboardEvent) => {
    const action = keys[event.key]
    if (!action || count === 0) return
    event.preventDefault()
    action()
  }

  const rows: ReactNode[] = []
  for (let index = start; index < end; index += 1) {
    rows.push(
      <div
        key={rowId(index)}
        id={rowId(index)}
        role="option"
        aria-selected={index === selected}
        aria-posinset={index + 1}
        aria-setsize={count}
        className="virtual-row"
        style={{ top: index * rowHeight, height: rowHeight }}
        onClick={() => onSelect(index)}
      >
        {renderRow(index)}
      </div>,
    )
  }
  return (
    <div
      ref={viewport}
      className="virtual-list"
      role="listbox"
      aria-label={label}
      tabIndex={0}
      aria-activedescendant={selected !== null && selected < count ? rowId(selected) : undefined}
      onKeyDown={onKeyDown}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div style={{ height: count * rowHeight, position: 'relative' }}>{rows}</div>
    </div>
  )
}
