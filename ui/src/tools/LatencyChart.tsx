// The durations of a tool's calls, oldest to newest, as bars.
export function LatencyChart({ durations }: { durations: number[] }) {
  if (durations.length === 0) return null;
  const max = Math.max(...durations, 1);
  const w = 240;
  const h = 48;
  const bar = w / Math.max(durations.length, 10);
  const sorted = [...durations].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return (
    <figure className="latency-chart">
      <svg width={w} height={h} role="img" aria-label={`Latency of the last ${durations.length} calls`}>
        {durations.map((d, i) => {
          const bh = Math.max(1, (d / max) * (h - 2));
          return <rect key={i} x={i * bar} y={h - bh} width={Math.max(1, bar - 1)} height={bh} className="latency-bar" />;
        })}
      </svg>
      <figcaption className="muted">
        {durations.length} {durations.length === 1 ? "call" : "calls"} · median {median.toFixed(0)} ms · max {max.toFixed(0)} ms
      </figcaption>
    </figure>
  );
}
