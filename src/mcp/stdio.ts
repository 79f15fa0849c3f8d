// `npm run mcp`: the MCP server over stdio, for a local agent, talking to a running gigmarket by
// URL with one API key (GIGMARKET_URL, GIGMARKET_API_KEY). The same tools as /mcp; each calls the
// API over HTTP, so the server decides everything. stdout is the protocol: diagnostics go to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadSpec } from '../spec.ts';
import type { ApiRequest, ApiResponse, CallApi } from './request.ts';
import { toolDefinitions } from './schema.ts';
import { createMcpServer } from './server.ts';

/** The API over HTTP with one key; a server that cannot be reached is an error the agent reads. */
function httpCaller(baseUrl: string, apiKey: string): CallApi {
  return async (request: ApiRequest): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...request.headers, authorization: `Bearer ${apiKey}`, 'user-agent': 'gigmarket-mcp-stdio' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      // Appended, not resolved: a base URL with a path (behind a proxy) keeps it.
      response = await fetch(`${baseUrl}${request.url}`, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: 'error',
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      return { status: 503, body: `cannot reach gigmarket at ${baseUrl}: ${(err as Error).message}` };
    }
    const text = await response.text();
    if (text === '') return { status: response.status, body: undefined };
    try {
      return { status: response.status, body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
    } catch {
      return { status: response.status >= 400 ? response.status : 502, body: text };
    }
  };
}

/** A required setting (declared, with the server's, in src/settings.ts). */
function setting(name: string, raw: string | undefined): string {
  const value = raw?.trim();
  if (!value) {
    process.stderr.write(
      `gigmarket MCP (stdio): set ${name} (GIGMARKET_URL: the server, e.g. http://localhost:3000; GIGMARKET_API_KEY: your key)\n`,
    );
    process.exit(2);
  }
  return value;
}

async function main(): Promise<void> {
  const baseUrl = setting('GIGMARKET_URL', process.env.GIGMARKET_URL).replace(/\/+$/, '');
  const apiKey = setting('GIGMARKET_API_KEY', process.env.GIGMARKET_API_KEY);
  const spec = loadSpec();
  const call = httpCaller(baseUrl, apiKey);
  const mcp = await createMcpServer({ tools: toolDefinitions(spec), publicUrl: baseUrl, version: spec.info.version, callerOf: () => call });
  await mcp.connect(new StdioServerTransport());
  process.stderr.write(`gigmarket MCP (stdio) serving ${baseUrl}\n`);
}

await main();
