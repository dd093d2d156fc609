import type { TeamUsageView } from '../usage/usage.service.js';
import { html, type SafeHtml } from '../users/html.js';
import { SETTINGS_PATHS, settingsPage, type Messages, type SettingsView } from './settings.layout.js';

interface ChartOptions {
  id: string;
  title: string;
  width: number;
  height: number;
  /** Axis labels (the largest value, the first and last day); off for the small per-credential charts. */
  labels: boolean;
}

/**
 * Requests per day as bars, drawn on the server as SVG (no script, allowed by the pages' policy):
 * each bar carries its day and count as a tooltip, and the chart a text equivalent for screen readers.
 */
export function barChart(values: readonly number[], days: readonly string[], o: ChartOptions): SafeHtml {
  const max = Math.max(1, ...values);
  const left = o.labels ? 44 : 0;
  const bottom = o.labels ? 20 : 0;
  const plotHeight = o.height - bottom - (o.labels ? 8 : 2);
  const step = (o.width - left) / Math.max(1, values.length);
  const total = values.reduce((a, b) => a + b, 0);
  const bars = values.map((v, i) => {
    const h = v === 0 ? 0 : Math.max(1.5, (v / max) * plotHeight);
    const x = left + i * step + step * 0.15;
    const y = o.height - bottom - h;
    return html`<rect
      x="${x.toFixed(1)}"
      y="${y.toFixed(1)}"
      width="${(step * 0.7).toFixed(1)}"
      height="${h.toFixed(1)}"
      fill="#2454d6"
      ><title>${days[i]}: ${v} requests</title></rect
    >`;
  });
  const axis = o.labels
    ? html`<line
          x1="${left}"
          y1="${o.height - bottom}"
          x2="${o.width}"
          y2="${o.height - bottom}"
          stroke="#9aa3b0"
        />
        <text x="${left - 6}" y="14" text-anchor="end" font-size="11" fill="#5b6473">${max}</text>
        <text x="${left - 6}" y="${o.height - bottom}" text-anchor="end" font-size="11" fill="#5b6473"
          >0</text
        >
        <text x="${left}" y="${o.height - 4}" font-size="11" fill="#5b6473">${days[0]}</text>
        <text x="${o.width}" y="${o.height - 4}" text-anchor="end" font-size="11" fill="#5b6473"
          >${days.at(-1)}</text
        >`
    : '';
  return html`<svg
    class="chart"
    viewBox="0 0 ${o.width} ${o.height}"
    width="${o.width}"
    height="${o.height}"
    role="img"
    aria-labelledby="${o.id}-title ${o.id}-desc"
  >
    <title id="${o.id}-title">${o.title}</title>
    <desc id="${o.id}-desc">
      ${total} requests from ${days[0]} to ${days.at(-1)}; the busiest day had ${Math.max(0, ...values)}.
    </desc>
    ${axis} ${bars}
  </svg>`;
}

function kindLabel(c: TeamUsageView['credentials'][number]): string {
  if (c.kind === 'api-key') return 'API key';
  return c.tokenKind === 'oauth' ? 'AI client' : 'MCP token';
}

export function usagePage(
  view: SettingsView,
  usage: TeamUsageView,
  flushSeconds: number,
  m: Messages = {},
): SafeHtml {
  const total = usage.totals.reduce((a, b) => a + b, 0);
  const today = usage.totals.at(-1) ?? 0;
  return settingsPage(
    view,
    SETTINGS_PATHS.usage,
    'Usage',
    [
      html`<section aria-labelledby="daily-title">
        <h2 id="daily-title">Requests per day, last ${usage.days.length} days</h2>
        <p>
          <strong>${total}</strong> requests with the team's keys and tokens; <strong>${today}</strong> today
          (UTC).
          <span class="muted"
            >Counts are written every ${flushSeconds} seconds, so the newest requests can take that long to
            appear.</span
          >
        </p>
        ${barChart(usage.totals, usage.days, {
          id: 'chart-total',
          title: `Requests per day with all of the team's keys and tokens`,
          width: 640,
          height: 180,
          labels: true,
        })}
      </section>`,
      html`<section aria-labelledby="by-title">
        <h2 id="by-title">By key and token</h2>
        ${
          usage.credentials.length
            ? html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Kind</th>
                      <th scope="col">Prefix</th>
                      <th scope="col">Per day</th>
                      <th scope="col">Today</th>
                      <th scope="col">${usage.days.length} days</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${usage.credentials.map(
                      (c) =>
                        html`<tr>
                          <td data-label="Name">${c.name}</td>
                          <td data-label="Kind">${kindLabel(c)}</td>
                          <td data-label="Prefix"><code>${c.prefix}</code></td>
                          <td data-label="Per day">
                            ${barChart(c.daily, usage.days, {
                              id: `chart-${c.kind}-${c.id}`,
                              title: `Requests per day with ${c.name}`,
                              width: 180,
                              height: 32,
                              labels: false,
                            })}
                          </td>
                          <td data-label="Today">${c.daily.at(-1) ?? 0}</td>
                          <td data-label="${usage.days.length} days">${c.total}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="muted">No requests with the team's keys or tokens in this period.</p>`
        }
      </section>`,
      html`<section aria-labelledby="windows-title">
        <h2 id="windows-title">Current rate-limit windows</h2>
        <p class="muted">
          Each key has its own window per Fusion API: 120 requests a minute for Building Link, 1,000 for Floor
          Plan Match.
        </p>
        ${
          usage.windows.length
            ? html`<div class="table-wrap">
                <table class="stack">
                  <thead>
                    <tr>
                      <th scope="col">Key</th>
                      <th scope="col">Scope</th>
                      <th scope="col">Limit</th>
                      <th scope="col">Remaining</th>
                      <th scope="col">Resets</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${usage.windows.map(
                      (w) =>
                        html`<tr>
                          <td data-label="Key">${w.apiKeyName}</td>
                          <td data-label="Scope"><code>${w.scope}</code></td>
                          <td data-label="Limit">${w.limit} a minute</td>
                          <td data-label="Remaining">${w.remaining}</td>
                          <td data-label="Resets">
                            ${w.resetSeconds === null ? html`<span class="muted">no requests this minute</span>` : `in ${w.resetSeconds} s`}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
            : html`<p class="muted">No active key carries a Fusion scope.</p>`
        }
      </section>`,
    ],
    m,
  );
}
