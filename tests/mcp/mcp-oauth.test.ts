// OAuth 2.1 for /mcp, over real HTTP on both databases: the metadata an MCP client discovers
// (RFC 9728, RFC 8414), the 401 challenge, a client registered dynamically (RFC 7591) going
// through PKCE, the owner's consent and the token endpoint, then calling tools with the token
// as its grant's key would (scopes filter tools/list and refuse the rest), refresh tokens that
// rotate (an old one used again ends the grant), and a grant revoked on the keys page stopping
// its token at once. The browser flow with a Client ID Metadata Document is tests/dashboard/dashboard-oauth.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { apiKeys, contractApprovals, oauthRecords } from '../../db/schema.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connectMcp, structured } from '../helpers/mcp.ts';
import { authorizationUrl, consent, oauthFlows, type Owner, pkce, REDIRECT, tokenRequest } from '../helpers/oauth.ts';

let server: TestServer;

beforeAll(async () => {
  // Every step of a flow is an anonymous request (the address budget), and this file makes many flows.
  server = await startTestServer({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10000' });
});
afterAll(() => server?.close());

const flows = () => oauthFlows(server);
const resource = () => `${server.url}/mcp`;
const register = () => flows().register();
const owner = (name: string) => flows().owner(name);
const exchange = (clientId: string, code: string, verifier: string) => flows().exchange(clientId, code, verifier);
const grantedTokens = (scopes: string[], who?: Owner) => flows().grantedTokens(scopes, who);

describe('OAuth for /mcp: discovery', () => {
  it('serves protected resource metadata for /mcp and the authorization server metadata it points to', async () => {
    const prm = await (await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(prm).toMatchObject({
      resource: resource(),
      authorization_servers: [server.url],
      scopes_supported: ['read', 'draft', 'approve', 'money'],
      bearer_methods_supported: ['header'],
    });
    const as = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      registration_endpoint: `${server.url}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['read', 'draft', 'approve', 'money']));
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });

  it('answers /mcp without credentials with 401 and a challenge naming the resource metadata', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp", scope="read draft approve money"`,
    );
    expect((await res.json()).error.code).toBe('UNAUTHENTICATED');
  });
});

describe('OAuth for /mcp: authorization', () => {
  it('refuses an authorization request without PKCE, and one for another resource', async () => {
    const person = await owner('Strict Owner');
    const client = await register();
    const base = { clientId: client.client_id, redirectUri: REDIRECT, scope: 'read', resource: resource() };
    const noPkce = await person.jar.fetch(authorizationUrl(server, base).toString());
    const noPkceBack = new URL(noPkce.headers.get('location')!);
    expect(noPkceBack.searchParams.get('error')).toBe('invalid_request');
    const other = await person.jar.fetch(
      authorizationUrl(server, { ...base, resource: 'https://elsewhere.example/mcp', challenge: pkce().challenge }).toString(),
    );
    expect(new URL(other.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('a refusal sends the client access_denied and grants nothing', async () => {
    const person = await owner('Refusing Owner');
    const client = await register();
    const request = { clientId: client.client_id, redirectUri: REDIRECT, scope: 'read', resource: resource(), challenge: pkce().challenge };
    const back = await consent(server, person.jar, request, { allow: false });
    expect(back.searchParams.get('error')).toBe('access_denied');
    const keys = await server.db.select().from(apiKeys).where(eq(apiKeys.userId, person.userId));
    expect(keys).toEqual([]);
  });

  it('a consent becomes a key standing for the grant, listed with its client and scopes; the token is opaque and for /mcp', async () => {
    const { person, client, tokens } = await grantedTokens(['read', 'draft']);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope.split(' ').sort()).toEqual(['draft', 'read']);
    expect(tokens.refresh_token).toBeTruthy();
    const listed = await person.api.GET('/api/keys');
    const grant = listed.data!.data.find((k) => k.oauth_client_id === client.client_id)!;
    expect(grant).toMatchObject({ name: 'Test Agent', scopes: ['read', 'draft'], may_approve: false, prefix: 'oauth', revoked_at: null });
    // A grant's key has no secret to rotate.
    const rotate = await person.api.POST('/api/keys/{id}/rotate', { params: { path: { id: grant.id } } });
    expect(rotate.response.status).toBe(409);
    expect(rotate.error!.error.code).toBe('INVALID_STATE');
  });

  it('an authorization code is used once', async () => {
    const { client, code, verifier } = await grantedTokens(['read']);
    const again = await exchange(client.client_id, code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });
});

describe('OAuth for /mcp: the token at work', () => {
  it('acts as its grant: tools/list shows what the scopes allow, and a tool beyond them is refused', async () => {
    const { person, tokens } = await grantedTokens(['read', 'draft']);
    const mcp = await connectMcp(server.url, 'http', tokens.access_token);
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toContain('searchGigs');
      expect(names).toContain('createGig');
      expect(names).not.toContain('fundMilestone');
      expect(names).not.toContain('approveContract');
      const me = await mcp.callTool({ name: 'verifyApiKey', arguments: {} });
      expect(structured(me).user_id).toBe(person.userId);
      const gig = await mcp.callTool({
        name: 'createGig',
        arguments: { body: { title: 'Tokened gig', description: 'Made through OAuth', rate_cents: 10_000 } },
      });
      expect(gig.isError, JSON.stringify(gig)).toBeFalsy();
      const none = '00000000-0000-4000-8000-000000000000';
      const fund = await mcp.callTool({ name: 'fundMilestone', arguments: { id: none, milestoneId: none } });
      expect(fund.isError).toBe(true);
      expect(structured(fund).error.code).toBe('FORBIDDEN');
      expect(structured(fund).error.message).toContain('"money" scope');
    } finally {
      await mcp.close();
    }
  });

  it('is refused by the API itself: the token is for /mcp alone', async () => {
    const { tokens } = await grantedTokens(['read']);
    const res = await fetch(`${server.url}/api/keys/verify`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(401);
  });

  it('refresh tokens rotate; the old one used again revokes the grant', async () => {
    const { client, tokens } = await grantedTokens(['read']);
    const refresh = (token: string) =>
      tokenRequest(server, { grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id, resource: resource() });
    const first = await refresh(tokens.refresh_token!);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    const mcp = await connectMcp(server.url, 'http', first.body.access_token);
    await mcp.close();
    const replayed = await refresh(tokens.refresh_token!);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    // Reuse is theft: the whole grant's tokens are gone, the new refresh token too.
    expect((await refresh(first.body.refresh_token!)).status).toBe(400);
    await expect(connectMcp(server.url, 'http', first.body.access_token)).rejects.toThrow();
  });

  it('a grant revoked on the keys page stops its token at once, and its records are gone', async () => {
    const { person, client, tokens } = await grantedTokens(['read']);
    const mcp = await connectMcp(server.url, 'http', tokens.access_token);
    await mcp.close();
    const key = (await person.api.GET('/api/keys')).data!.data.find((k) => k.oauth_client_id === client.client_id)!;
    const revoked = await person.api.POST('/api/keys/{id}/revoke', { params: { path: { id: key.id } } });
    expect(revoked.response.status).toBe(200);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(res.status).toBe(401);
    const [row] = await server.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    const records = await server.db.select().from(oauthRecords).where(eq(oauthRecords.grantId, row!.oauthGrantId!));
    expect(records).toEqual([]);
  });

  it("the approve scope approves as its grant's key would: after the owner confirms, and only asking under owner_confirms", async () => {
    const person = await owner('Approving Owner');
    const made = (await person.api.POST('/api/keys', { body: { name: 'setup' } })).data!;
    const client = { userId: person.userId, apiKey: made.key, apiKeyId: made.id, api: server.client(made.key) };
    const worker = await server.user('Token Worker');
    const { tokens } = await grantedTokens(['read', 'approve'], person);
    const grantKey = (await person.api.GET('/api/keys')).data!.data.find((k) => k.scopes !== null)!;

    // keys_may_approve: the owner confirms in the client (elicitation), and the approval is the grant's key's.
    const first = await pendingContract(client, worker);
    const confirming = await connectMcp(server.url, 'http', tokens.access_token, () => ({ action: 'accept', content: { confirm: true } }));
    const approved = await confirming.callTool({ name: 'approveContract', arguments: { id: first.contract.id } });
    await confirming.close();
    expect(approved.isError, JSON.stringify(approved)).toBeFalsy();
    const [approval] = await server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, first.contract.id));
    expect(approval).toMatchObject({ method: 'api_key', apiKeyId: grantKey.id });

    // owner_confirms: the same token only asks the owner; nothing is approved.
    expect((await person.api.PATCH('/api/profile/me', { body: { approval_policy: 'owner_confirms' } })).response.status).toBe(200);
    const second = await pendingContract(client, worker);
    const asking = await connectMcp(server.url, 'http', tokens.access_token);
    const asked = await asking.callTool({ name: 'approveContract', arguments: { id: second.contract.id } });
    await asking.close();
    expect(JSON.stringify(structured(asked))).toContain('owner_confirmation_required');
    expect(await server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, second.contract.id))).toEqual([]);
  });
});
