import { html, type SafeHtml } from '../pages/html';

/**
 * A bar chart as server-rendered SVG (no script, no library): one bar per day, the highest value on the axis.
 * `label` is the accessible name; the bars carry <title>s so a pointer shows each day's amount.
 */
export function barChart(points: Array<{ label: string; value: number; title: string }>, o: { label: string; maxLabel: (v: number) => string }): SafeHtml {
  const W = 600;
  const H = 180;
  const top = 20;
  const bottom = 24;
  const max = Math.max(1, ...points.map((p) => p.value));
  const slot = W / Math.max(1, points.length);
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number) => top + (H - top - bottom) * (1 - v / max);
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${o.label}" xmlns="http://www.w3.org/2000/svg">
<line x1="0" y1="${H - bottom}" x2="${W}" y2="${H - bottom}" stroke="#d1d6db" />
<text x="0" y="13" font-size="12" fill="#4e5968">${o.maxLabel(max)}</text>
${points.map((p, i) => {
  const x = i * slot + (slot - bar) / 2;
  const yy = y(p.value);
  return html`<rect x="${x.toFixed(1)}" y="${yy.toFixed(1)}" width="${bar.toFixed(1)}" height="${Math.max(0, H - bottom - yy).toFixed(1)}" rx="2" fill="#3182f6"><title>${p.title}</title></rect>`;
})}
${points.length ? html`<text x="0" y="${H - 6}" font-size="12" fill="#4e5968">${points[0].label}</text><text x="${W}" y="${H - 6}" font-size="12" fill="#4e5968" text-anchor="end">${points[points.length - 1].label}</text>` : ''}
</svg>`;
}
