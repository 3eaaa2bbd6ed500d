export interface BenchRow {
  name: string;
  value: string;
  note?: string;
}

export function markdownTable(rows: BenchRow[]): string {
  const lines = ['| measurement | result | note |', '|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.name} | ${r.value} | ${r.note ?? ''} |`);
  return lines.join('\n');
}

/** Median and 99th percentile of a list of milliseconds. */
export function percentiles(samples: number[]): { median: number; p99: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p99: at(0.99) };
}
