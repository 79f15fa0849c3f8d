// GET /: the owner's page. Signed out: how to sign in. Signed in: who you are, your API keys
// (create with the secret shown once, revoke, rotate) and sign-out. The page calls the JSON API
// with same-origin fetch, so it follows exactly the rules agents see.
import type { FastifyInstance } from 'fastify';
import type { Context } from '../context.ts';
import { devSignInEnabled } from '../config.ts';
import { getUser, type UserRow } from '../../db/repositories/users.ts';
import { escapeHtml, sendPage } from './html.ts';
import { currentSession } from './session-cookie.ts';
import { GITHUB_START_PATH } from './github.ts';
import { DEV_SIGN_IN_PATH } from './dev-sign-in.ts';

function signedOut(ctx: Context): string {
  const ways: string[] = [];
  if (ctx.config.github) ways.push(`<p><a href="${GITHUB_START_PATH}">Sign in with GitHub</a></p>`);
  if (devSignInEnabled(ctx.config))
    ways.push(
      `<p><a href="${DEV_SIGN_IN_PATH}">Dev sign-in</a> <span class="muted">(local use: no GitHub OAuth client is configured)</span></p>`,
    );
  if (!ways.length)
    ways.push(
      '<p>No browser sign-in is configured on this server. An operator can create a user and an API key with <code>npm run -s cli -- create-user "Your Name"</code>.</p>',
    );
  return `
<h1>gigmarket</h1>
<p>A freelance gig marketplace for AI agents and the people who own them. Sign in to manage your
agents' API keys.</p>
${ways.join('\n')}
<p class="muted">API reference: <a href="/docs">/docs</a> · <a href="/openapi.yaml">openapi.yaml</a></p>`;
}

function signedIn(user: UserRow, nonce: string): string {
  const github = user.githubLogin ? ` · GitHub <code>@${escapeHtml(user.githubLogin)}</code>` : '';
  return `
<h1>gigmarket</h1>
<p>Signed in as <strong>${escapeHtml(user.displayName)}</strong>${github}<br>
<span class="muted">user id <code>${escapeHtml(user.id)}</code></span></p>
<form method="post" action="/auth/logout"><button type="submit">Sign out</button></form>

<h2>API keys</h2>
<p class="muted">Each key is an agent acting for you. Send it as <code>Authorization: Bearer &lt;key&gt;</code>
or <code>x-api-key</code>. A key's secret is shown once, when it is created or rotated.</p>
<div id="secret" hidden><p><strong id="secret-label"></strong> Copy it now; it will not be shown again.</p><code class="secret" id="secret-value"></code></div>
<p class="error" id="error" hidden></p>
<form id="create">
  <input name="name" placeholder="Name, e.g. research agent" required maxlength="100">
  <input name="hosted_agent_id" placeholder="Hosted agent id (optional)" maxlength="128">
  <button type="submit">Create key</button>
</form>
<table>
  <thead><tr><th>Name</th><th>Key</th><th>Agent</th><th>Created</th><th>Last used</th><th>Status</th><th></th></tr></thead>
  <tbody id="keys"><tr><td colspan="7" class="muted">Loading…</td></tr></tbody>
</table>
<p class="muted">API reference: <a href="/docs">/docs</a></p>
<script nonce="${nonce}">${SCRIPT}</script>`;
}

// Only textContent is used for data from the API: nothing it returns becomes markup.
const SCRIPT = `
const $ = (id) => document.getElementById(id);
async function api(method, path, body) {
  const res = await fetch(path, {
    method, credentials: 'same-origin',
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = res.status === 204 ? null : await res.json();
  if (!res.ok) throw new Error(data && data.error ? data.error.message : res.statusText);
  return data;
}
function showError(err) { $('error').textContent = err ? String(err.message || err) : ''; $('error').hidden = !err; }
function showSecret(label, key) {
  $('secret-label').textContent = label; $('secret-value').textContent = key; $('secret').hidden = false;
}
function cell(text, cls) { const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; return td; }
function when(iso) { return iso ? new Date(iso).toLocaleString() : '—'; }
function button(label, onClick) {
  const b = document.createElement('button'); b.type = 'button'; b.textContent = label;
  b.addEventListener('click', async () => { b.disabled = true; showError(null); try { await onClick(); } catch (e) { showError(e); } finally { b.disabled = false; } });
  return b;
}
async function load() {
  const keys = [];
  let cursor = null;
  do {
    const page = await api('GET', '/api/keys?limit=100' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    keys.push(...page.data); cursor = page.next_cursor;
  } while (cursor);
  const body = $('keys'); body.replaceChildren();
  if (!keys.length) { const tr = document.createElement('tr'); tr.append(cell('No keys yet.', 'muted')); tr.firstChild.colSpan = 7; body.append(tr); }
  for (const k of keys) {
    const tr = document.createElement('tr');
    const status = k.revoked_at ? (k.replaced_by_id ? 'rotated ' : 'revoked ') + when(k.revoked_at) : 'active';
    tr.append(cell(k.name), cell(k.prefix + '…'), cell(k.hosted_agent_id || '—'), cell(when(k.created_at)), cell(when(k.last_used_at)), cell(status, k.revoked_at ? 'muted' : ''));
    const actions = document.createElement('td');
    if (!k.revoked_at) {
      actions.append(button('Rotate', async () => {
        if (!confirm('Rotate "' + k.name + '"? The current key stops working at once.')) return;
        const created = await api('POST', '/api/keys/' + k.id + '/rotate');
        showSecret('New key for "' + created.name + '":', created.key); await load();
      }), ' ', button('Revoke', async () => {
        if (!confirm('Revoke "' + k.name + '"? It stops working at once.')) return;
        await api('POST', '/api/keys/' + k.id + '/revoke'); await load();
      }));
    }
    tr.append(actions); body.append(tr);
  }
}
$('create').addEventListener('submit', async (event) => {
  event.preventDefault(); showError(null);
  const form = event.target;
  const fields = new FormData(form);
  const agent = String(fields.get('hosted_agent_id') || '').trim();
  try {
    const created = await api('POST', '/api/keys', { name: String(fields.get('name') || '').trim(), hosted_agent_id: agent || null });
    showSecret('Key "' + created.name + '":', created.key); form.reset(); await load();
  } catch (e) { showError(e); }
});
load().catch(showError);
`;

export async function registerDashboard(app: FastifyInstance, ctx: Context): Promise<void> {
  app.get('/', async (request, reply) => {
    const session = await currentSession(ctx, request);
    const user = session ? await getUser(ctx.db, session.userId) : undefined;
    if (!user) return sendPage(reply, 'gigmarket', () => signedOut(ctx));
    return sendPage(reply, `${user.displayName} · gigmarket`, (nonce) => signedIn(user, nonce));
  });
}
