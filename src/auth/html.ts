// Tiny self-contained HTML pages for people (sign-in, the owner dashboard): no external assets,
// inline style and script allowed only through a per-response nonce.
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { DOCUMENT_HEADERS } from '../http/security-headers.ts';

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #ddd; }
  code, .secret { font-family: ui-monospace, monospace; } .muted { color: #666; }
  .secret { display: block; background: #fff8d6; border: 1px solid #e6c200; padding: .6rem; word-break: break-all; }
  form.inline { display: inline; } input { padding: .3rem; } button { padding: .3rem .7rem; cursor: pointer; }
  .error { color: #b00020; }
`;

/** Sends an HTML page with a strict Content-Security-Policy; `body` must already be escaped. */
export function sendPage(reply: FastifyReply, title: string, body: (nonce: string) => string, status = 200) {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
    )
    .headers(DOCUMENT_HEADERS)
    .send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head>
<body>
${body(nonce)}
</body>
</html>
`);
}
