import type { FastifyReply } from 'fastify';

/** Markup that is already escaped; only `html` and `raw` make one. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Interpolation = SafeHtml | string | number | null | undefined | false | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((v: Interpolation) => render(v)).join('');
  return escapeHtml(String(value));
}

/**
 * Tagged template that escapes every interpolated value unless it is SafeHtml, so text that comes
 * from clients (a registered client name, an email) can never inject markup.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new SafeHtml(out);
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;background:#f5f6f8;color:#1d2330;margin:0}
main{max-width:28rem;margin:4rem auto;background:#fff;border-radius:10px;padding:2rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}
input[type=email],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box;font:inherit;border:1px solid #9aa3b0;border-radius:6px}
button{font:inherit;padding:.5rem 1.2rem;margin:1rem .5rem 0 0;border-radius:6px;border:1px solid #999;cursor:pointer}
button.primary{background:#2454d6;border-color:#2454d6;color:#fff}
.error{background:#fde8e8;border:1px solid #f3b4b4;padding:.6rem;border-radius:6px}
.muted{color:#5b6473;font-size:.9rem}fieldset{border:1px solid #d5d9e0;border-radius:6px}
.team label{display:flex;gap:.6rem;align-items:flex-start;margin:0;padding:.45rem 0}
.team input{width:1.15rem;height:1.15rem;margin:.2rem 0 0;flex:none}.team.disabled{color:#8a919c}
.note{display:block}
@media (max-width:32rem){main{margin:1rem;padding:1.25rem}h1{font-size:1.2rem}}`;

export interface PageOptions {
  /** A wider sheet for pages with tables (the team settings). */
  wide?: boolean;
  /** Extra style rules of the page's feature. */
  style?: string;
  /** Same-origin scripts the page loads (sendPage must then allow them: `scripts: true`). */
  scripts?: readonly string[];
}

export function page(title: string, body: SafeHtml, opts: PageOptions = {}): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Property Data Service</title>
        <style>
          ${new SafeHtml(STYLE + (opts.style ?? ''))}
        </style>
        ${(opts.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <main class="${opts.wide ? 'wide' : ''}">${body}</main>
      </body>
    </html>`;
}

/**
 * Sends a server-rendered page. The pages carry credentials or consent, so they are never cached,
 * never framed (clickjacking a consent button), and leak no referrer to other sites. The referrer
 * policy is `same-origin`, not `no-referrer`: under `no-referrer` browsers send `Origin: null` with
 * the pages' own form posts, which the cross-site check cannot tell from a forged post. Forms post
 * to this origin only (`form-action 'self'`), so injected markup cannot send a form elsewhere.
 * Browsers apply `form-action` to the redirect that follows a post too, so the consent page also
 * allows the one place its answer redirects to: the client's registered redirect URI
 * (`formActionTo`). A page that loads a script (the settings' copy button) allows same-origin script
 * files only: never inline script.
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  markup: SafeHtml,
  opts: { scripts?: boolean; formActionTo?: string } = {},
): FastifyReply {
  const formAction = ["'self'", ...(opts.formActionTo ? [formActionSource(opts.formActionTo)] : [])];
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header(
      'content-security-policy',
      `default-src 'none'; ${opts.scripts ? "script-src 'self'; " : ''}style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action ${formAction.join(' ')}; frame-ancestors 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'same-origin')
    .header('x-content-type-options', 'nosniff')
    .send(markup.value);
}

/**
 * The CSP source that allows a redirect to `uri`: its origin for http(s) on a named host, its scheme
 * for a private-use scheme (`cursor:`) or an IP-literal host, which source expressions cannot name.
 */
export function formActionSource(uri: string): string {
  const url = new URL(uri);
  const scheme = url.protocol;
  if (!/^[a-z][a-z0-9+.-]*:$/.test(scheme)) return "'none'";
  if ((scheme === 'https:' || scheme === 'http:') && /^[a-z0-9.-]+$/i.test(url.hostname)) return url.origin;
  return scheme;
}
