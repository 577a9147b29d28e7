/** One value of a metric, with its labels. */
export interface MetricSample {
  labels?: Record<string, string>
  value: number
}

/** A named metric with its help text, Prometheus type and current values. */
export interface MetricFamily {
  /** Prometheus name, `linkdesk_` prefix, snake_case; counters end in `_total`. */
  name: string
  help: string
  type: 'counter' | 'gauge'
  samples: MetricSample[]
}

/**
 * A part of the app that reports metrics. `collect` is called at each scrape of `GET /api/v1/metrics`, so it
 * should only read counters it already keeps (no I/O). Labels never carry ids, tokens or message content.
 */
export interface MetricsProvider {
  collect(): MetricFamily[]
}

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
