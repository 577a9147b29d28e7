import type { MetricFamily, MetricsProvider } from '../contract/metrics'

/** The providers of the running core, rendered together in Prometheus' text format. */
export class MetricsRegistry {
  private readonly providers = new Set<MetricsProvider>()

  /** Adds a provider; returns the function that removes it. */
  register(provider: MetricsProvider): () => void {
    this.providers.add(provider)
    return () => this.providers.delete(provider)
  }

  /** All metrics in the Prometheus text exposition format (version 0.0.4). */
  render(): string {
    const families = new Map<string, MetricFamily>()
    for (const provider of this.providers) {
      for (const family of provider.collect()) {
        const known = families.get(family.name)
        if (known) known.samples.push(...family.samples)
        else families.set(family.name, { ...family, samples: [...family.samples] })
      }
    }
    const lines: string[] = []
    for (const family of families.values()) {
      lines.push(`# HELP ${family.name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
      lines.push(`# TYPE ${family.name} ${family.type}`)
      for (const sample of family.samples)
        lines.push(`${family.name}${renderLabels(sample.labels)} ${renderValue(sample.value)}`)
    }
    return `${lines.join('\n')}\n`
  }
}

function renderLabels(labels: Record<string, string> | undefined): string {
  const entries = Object.entries(labels ?? {})
  if (entries.length === 0) return ''
  const escape = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
  return `{${entries.map(([name, value]) => `${name}="${escape(value)}"`).join(',')}}`
}

function renderValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return String(value)
}
