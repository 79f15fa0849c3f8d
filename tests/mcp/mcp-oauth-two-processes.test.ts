// OAuth for /mcp on a deployment of two server processes on one Postgres, behind a plain
// round-robin balancer (an HTTP proxy in the test that sends each request to the next process;
// both have the balancer's address as PUBLIC_URL, as they would in production). The owner signs
// in, consents and the client gets and refreshes its tokens, every step on whichever process the
// balancer picks; the MCP client then works with the token on both.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.ts';
import {
  killRunningServers,
  processDatabase,
  spawnServer,
  waitUntilHealthy,
  type ProcessDatabase,
  type ServerProcess,
} from '../helpers/server-process.ts';
import { SESSION_COOKIE } from '../helpers/cookie-jar.ts';
import { signedInOwner } from '../helpers/owner-consent.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { consent, pkce, tokenRequest } from '../helpers/oauth.ts';

/** A round-robin HTTP balancer: each request to the next target, streamed both ways, headers as they are. */
function balancer(targets: string[]) {
  const served: number[] = [];
  let turn = 0;
  const server = http.createServer((request, response) => {
    const index = turn++ % targets.length;
    served.push(index);
    const target = new URL(targets[index]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode!, answer.rawHeaders);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  return { server, served };
}

describe.runIf(process.env.DATABASE_URL)('OAuth for /mcp on two server processes behind a round-robin balancer', () => {
  let database: ProcessDatabase | undefined;
  let processes: ServerProcess[] = [];
  let front: ReturnType<typeof balancer> | undefined;
  let url: string;

  beforeAll(async () => {
    database = await processDatabase();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = { ...database.env, PUBLIC_URL: url, LOG_LEVEL: 'warn', RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' };
    processes = await Promise.all([spawnServer(env), spawnServer(env)]);
    await Promise.all(processes.map(waitUntilHealthy));
    front = balancer(processes.map((p) => p.url));
    const listening = front.server;
    await new Promise<void>((resolve) => listening.listen(port, '127.0.0.1', resolve));
    expect((listening.address() as AddressInfo).port).toBe(port);
  }, 120_000);

  afterAll(async () => {
    front?.server.close();
    killRunningServers();
    await Promise.all(processes.map((p) => p.exited));
    await database?.drop();
  }, 120_000);

  it('an owner consents and a client gets, refreshes and uses its tokens, each step on either process', async () => {
    const server = { url };
    const jar = await signedInOwner(url, 'Two-Instance Owner');
    expect(jar.cookies.get(SESSION_COOKIE)).toBeTruthy();

    const registered = await fetch(`${url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Balanced Agent', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(registered.status).toBe(201);
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const { verifier, challenge } = pkce();
    const request = { clientId, redirectUri: 'http://127.0.0.1:9/cb', scope: 'read draft', resource: `${url}/mcp`, challenge };
    const back = await consent(server, jar, request, { allow: true, scopes: ['read', 'draft'] });
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const token = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/cb',
      client_id: clientId,
      code_verifier: verifier,
      resource: `${url}/mcp`,
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const refreshed = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: token.body.refresh_token!,
      client_id: clientId,
      resource: `${url}/mcp`,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);

    const mcp = await connectMcp(url, 'http', refreshed.body.access_token);
    try {
      for (const title of ['First gig', 'Second gig', 'Third gig']) {
        const gig = await mcp.callTool({ name: 'createGig', arguments: { body: { title } } });
        expect(gig.isError, JSON.stringify(gig)).toBeFalsy();
      }
      expect((await mcp.listTools()).tools.map((t) => t.name)).not.toContain('fundMilestone');
    } finally {
      await mcp.close();
    }
    // Both processes served the flow and the session.
    expect(new Set(front!.served)).toEqual(new Set([0, 1]));
  });
});
