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
