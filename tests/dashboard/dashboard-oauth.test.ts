// An MCP client connects by OAuth with the owner's consent, in a real browser (Chromium through
// playwright-core), as hosted assistants and IDE agents do: the SDK's own client with its OAuth
// support discovers the authorization server from /mcp's 401, identifies itself by a Client ID
// Metadata Document served from a local https URL, and sends the owner to the authorization page
// with PKCE. The owner signs in, sees the client and the scopes on the dashboard's Authorize page,
// leaves `money` unticked and allows; the client exchanges the code, works within what was
// granted, and refreshes its tokens. The grant then shows on the API keys page, where revoking it
// ends the client's access.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth as sdkAuth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import { browserRuns, dashboardForFile, navLink, suiteTitle, type Dashboard } from '../helpers/dashboard.ts';

let world: Dashboard;
let page: Page;
let documentServer: https.Server;
let callbackServer: http.Server;
let clientIdUrl: string;
let callbackUrl: string;
const codes: string[] = [];

/** A certificate for localhost, trusted by this process (the server fetches the client's document from it). */
function localhostCertificate() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gm-cimd-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost', '-keyout', key, '-out', cert],
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

const listen = (server: http.Server | https.Server) =>
  new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

beforeAll(async () => {
  if (!browserRuns) return;
  callbackServer = http.createServer((request, response) => {
    const code = new URL(request.url!, 'http://127.0.0.1').searchParams.get('code');
    if (code) codes.push(code);
    response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<!doctype html><title>Connected</title><h1>You can close this window</h1>');
  });
  callbackUrl = `http://127.0.0.1:${await listen(callbackServer)}/callback`;
  const certificate = localhostCertificate();
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), certificate.cert.toString()]);
  documentServer = https.createServer(certificate, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
    response.end(JSON.stringify({ ...metadata(), client_id: clientIdUrl }));
  });
  clientIdUrl = `https://localhost:${await listen(documentServer)}/agent/client.json`;
});
afterAll(() => {
  documentServer?.close();
  callbackServer?.close();
});

dashboardForFile(
  (opened) => {
    world = opened;
    page = opened.page;
  },
  () => ({ OAUTH_CLIENT_DOCUMENTS_ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10000' }),
);

function metadata(): OAuthClientMetadata {
  return {
    client_name: 'Localhost Agent',
    redirect_uris: [callbackUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** The client's side of OAuth, as an MCP host keeps it: where it is, what it was given. */
class AgentAuth implements OAuthClientProvider {
  readonly clientMetadataUrl = clientIdUrl;
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  get redirectUrl() {
    return callbackUrl;
  }
  get clientMetadata() {
    return metadata();
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const mcpUrl = () => new URL(`${world.server.url}/mcp`);

async function connected(auth: AgentAuth) {
  const client = new Client({ name: 'localhost-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: auth }));
  return client;
}

describe.skipIf(!browserRuns)(suiteTitle('OAuth for /mcp in the browser'), () => {
  it('an MCP client identified by its metadata document gets the scopes the owner ticks, and loses them when the grant is revoked', async () => {
    const auth = new AgentAuth();
    const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: auth });
    await expect(new Client({ name: 'localhost-agent', version: '1.0.0' }).connect(first)).rejects.toThrow(/Unauthorized/);
    const authorization = auth.authorizationUrl!;
    expect(authorization.origin + authorization.pathname).toBe(`${world.server.url}/oauth/authorize`);
    expect(authorization.searchParams.get('client_id')).toBe(clientIdUrl);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(`${world.server.url}/mcp`);

    // Signed out: the dashboard signs the owner in first, and comes back to the Authorize page.
    await page.goto(authorization.toString());
    await page.getByRole('link', { name: 'Dev sign-in' }).click();
    await page.getByLabel('Display name').fill('Olga Owner');
    await page.getByRole('button', { name: 'Create and sign in' }).click();
    await page.getByRole('heading', { name: /Localhost Agent.*asks to act for you/ }).waitFor();
    await page.getByText(clientIdUrl).waitFor();
    await checkPage(page, 'oauth-consent');
    expect(await page.getByRole('checkbox', { name: /read/ }).isDisabled()).toBe(true);
    await page.getByRole('checkbox', { name: /money/ }).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'You can close this window' }).waitFor();

    await first.finishAuth(codes.at(-1)!);
    expect(auth.tokens()?.scope?.split(' ').sort()).toEqual(['approve', 'draft', 'read']);
    const client = await connected(auth);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('approveContract');
    expect(names).not.toContain('fundMilestone');
    const me = await client.callTool({ name: 'verifyApiKey', arguments: {} });
    expect(me.isError).toBeFalsy();
    await client.close();

    // The SDK refreshes with its refresh token, which rotates; the new access token works.
    const before = auth.tokens()!;
    expect(await sdkAuth(auth, { serverUrl: mcpUrl() })).toBe('AUTHORIZED');
    expect(auth.tokens()!.access_token).not.toBe(before.access_token);
    expect(auth.tokens()!.refresh_token).not.toBe(before.refresh_token);
    const refreshed = await connected(auth);
    expect((await refreshed.callTool({ name: 'verifyApiKey', arguments: {} })).isError).toBeFalsy();
    await refreshed.close();

    // The grant on the API keys page: named by the client, with its scopes; no rotation, a revocation.
    await page.goto(`${world.server.url}/`);
    await navLink(page, 'API keys').click();
    const row = page.getByTestId('keys').getByRole('row', { name: /Localhost Agent/ });
    await row.getByText('read, draft, approve').waitFor();
    expect(await row.getByRole('button', { name: 'Rotate Localhost Agent' }).count()).toBe(0);
    await checkPage(page, 'oauth-grant-on-keys-page');
    await row.getByRole('button', { name: 'Revoke Localhost Agent' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.getByText(/Revoked/).waitFor();
    // Its token stops at once; the SDK client, unable to refresh, asks for authorization again.
    const after = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: auth });
    await expect(new Client({ name: 'localhost-agent', version: '1.0.0' }).connect(after)).rejects.toThrow();
  });
});
