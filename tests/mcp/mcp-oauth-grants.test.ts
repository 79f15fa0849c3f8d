// The life of an OAuth grant beyond the happy path, over real HTTP on both databases: a code or a
// refresh token redeemed twice at once gives tokens once; a grant the authorization server ends
// (a refresh token reused, a token revoked at /oauth/revoke) revokes its key on the keys page; an
// owner at the cap of keys and grants sends the client an access_denied saying why; a token's use shows as the key's last use; forged forwarding headers
// do not change the server's address; housekeeping forgets clients registered but never granted.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { apiKeys, oauthRecords } from '../../db/schema.ts';
import { housekeep } from '../../src/services/housekeeping.ts';
import { MAX_ACTIVE_KEYS_PER_USER } from '../../src/services/api-keys.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { authorizationUrl, consent, oauthFlows, pkce, REDIRECT } from '../helpers/oauth.ts';
import { answerAuthorization, signedInOwner } from '../helpers/owner-consent.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let flows: ReturnType<typeof oauthFlows>;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10000' });
  flows = oauthFlows(server);
});
afterAll(() => server?.close());

const grantKey = async (clientId: string) => (await server.db.select().from(apiKeys).where(eq(apiKeys.oauthClientId, clientId)))[0]!;

describe('OAuth grants', () => {
  it('a code redeemed twice at once gives tokens once', async () => {
    const { client, code, verifier } = await flows.grantedCode(['read']);
    const answers = await Promise.all([0, 1].map(() => flows.exchange(client.client_id, code, verifier)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
  });

  it('a refresh token redeemed twice at once gives new tokens once', async () => {
    const { client, tokens } = await flows.grantedTokens(['read']);
    const answers = await Promise.all([0, 1].map(() => flows.refresh(client.client_id, tokens.refresh_token!)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
  });

  it('a grant ended by a reused refresh token revokes its key, which the keys page shows', async () => {
    const { person, client, tokens } = await flows.grantedTokens(['read']);
    expect((await flows.refresh(client.client_id, tokens.refresh_token!)).status).toBe(200);
    expect((await flows.refresh(client.client_id, tokens.refresh_token!)).status).toBe(400);
    await vi.waitFor(async () => expect((await grantKey(client.client_id)).revokedAt).not.toBeNull());
    const listed = (await person.api.GET('/api/keys')).data!.data.find((k) => k.oauth_client_id === client.client_id)!;
    expect(listed.revoked_at).toEqual(expect.any(String));
  });

  it('revoking a token at /oauth/revoke ends the grant: its tokens and its key', async () => {
    const { client, tokens } = await flows.grantedTokens(['read']);
    const revoked = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: client.client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    await expect(connectMcp(server.url, 'http', tokens.access_token)).rejects.toThrow();
    expect((await flows.refresh(client.client_id, tokens.refresh_token!)).status).toBe(400);
    await vi.waitFor(async () => expect((await grantKey(client.client_id)).revokedAt).not.toBeNull());
  });

  it("a token's use is its key's last use", async () => {
    const { client, tokens } = await flows.grantedTokens(['read']);
    expect((await grantKey(client.client_id)).lastUsedAt).toBeNull();
    const mcp = await connectMcp(server.url, 'http', tokens.access_token);
    await mcp.callTool({ name: 'verifyApiKey', arguments: {} });
    await mcp.close();
    await vi.waitFor(async () => expect((await grantKey(client.client_id)).lastUsedAt).not.toBeNull());
  });

  it('an owner at the cap of keys and grants: the client gets access_denied saying why, and nothing is granted', async () => {
    const person = await flows.owner('Capped Owner');
    for (let i = 0; i < MAX_ACTIVE_KEYS_PER_USER; i++) {
      expect((await person.api.POST('/api/keys', { body: { name: `key ${i}` } })).response.status).toBe(201);
    }
    const client = await flows.register();
    const request = {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      scope: 'read',
      resource: `${server.url}/mcp`,
      challenge: pkce().challenge,
    };
    const back = await consent(server, person.jar, request, { allow: true, scopes: ['read'] });
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('error_description')).toContain('the most allowed');
    expect(back.searchParams.get('code')).toBeNull();
    const granted = await server.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, person.userId), sql`${apiKeys.oauthGrantId} is not null`));
    expect(granted).toEqual([]);
    const grants = await server.db.select().from(oauthRecords).where(eq(oauthRecords.model, 'Grant'));
    expect(grants.filter((g) => (g.payload as { accountId?: string }).accountId === person.userId)).toEqual([]);
  });

  it('a request that names no scope is granted read', async () => {
    const client = await flows.register();
    const jar = await signedInOwner(server.url, 'Scopeless Owner');
    const { verifier, challenge } = pkce();
    const url = authorizationUrl(server, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      scope: '',
      resource: `${server.url}/mcp`,
      challenge,
    });
    url.searchParams.delete('scope');
    const back = await answerAuthorization(server.url, jar, url.toString(), { allow: true, scopes: [] });
    const token = await flows.exchange(client.client_id, back.searchParams.get('code')!, verifier);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.scope).toBe('read');
  });

  it('the metadata names PUBLIC_URL whatever forwarding headers a client sends', async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-authorization-server`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    const metadata = (await res.json()) as { issuer: string; token_endpoint: string };
    expect(metadata.issuer).toBe(server.url);
    expect(metadata.token_endpoint).toBe(`${server.url}/oauth/token`);
  });

  it('housekeeping forgets a client registered a day ago and never granted, and keeps one with a live grant', async () => {
    const unused = await flows.register('Abandoned Agent');
    const { client: used } = await flows.grantedTokens(['read']);
    await server.db.update(oauthRecords).set({ createdAt: sql`now() - interval '2 days'` }).where(eq(oauthRecords.model, 'Client'));
    await housekeep({ db: server.db });
    const clients = await server.db.select({ id: oauthRecords.id }).from(oauthRecords).where(eq(oauthRecords.model, 'Client'));
    const ids = clients.map((c) => c.id);
    expect(ids).not.toContain(unused.client_id);
    expect(ids).toContain(used.client_id);
  });
});
