import { html, type SafeHtml } from '../pages/html';

/**
 * A bar chart as server-rendered SVG (no script, no library): one bar per day, the highest value on the axis.
 * `label` is the accessible name; the bars carry <title>s so a pointer shows each day's amount.
 *
 * The drawing stretches to the card's width (preserveAspectRatio="none" at a fixed CSS height), so the text is kept
 * out of it: the axis labels are HTML around the SVG, at the page's own type size whatever the card's width (inside a
 * scaled SVG a 12-unit label rendered at ~6 px on a phone).
 */
export function barChart(points: Array<{ label: string; value: number; title: string }>, o: { label: string; maxLabel: (v: number) => string }): SafeHtml {
  const W = 600;
  const H = 140;
  const top = 4;
  const max = Math.max(1, ...points.map((p) => p.value));
  const slot = W / Math.max(1, points.length);
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number) => top + (H - top) * (1 - v / max);
  const mid = points.length > 2 ? points[Math.floor((points.length - 1) / 2)] : null;
  return html`<div class="chart-box">
<p class="chart-max" data-chart-label>${o.maxLabel(max)}</p>
<svg class="chart" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${o.label}" xmlns="http://www.w3.org/2000/svg">
<line x1="0" y1="${H - 0.5}" x2="${W}" y2="${H - 0.5}" stroke="#d1d6db" vector-effect="non-scaling-stroke" />
${points.map((p, i) => {
  const x = i * slot + (slot - bar) / 2;
  const yy = y(p.value);
  return html`<rect x="${x.toFixed(1)}" y="${yy.toFixed(1)}" width="${bar.toFixed(1)}" height="${Math.max(0, H - yy).toFixed(1)}" fill="#3182f6"><title>${p.title}</title></rect>`;
})}
</svg>
${points.length ? html`<p class="chart-axis" aria-hidden="true"><span data-chart-label>${points[0].label}</span>${mid ? html`<span data-chart-label>${mid.label}</span>` : ''}<span data-chart-label>${points[points.length - 1].label}</span></p>` : ''}
</div>`;
}
