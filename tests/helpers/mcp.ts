// The SDK's own MCP client, connected to a test server over either transport: Streamable HTTP
// against its /mcp, or stdio by spawning `node src/mcp/stdio.ts` pointed at it.
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

export type Transport = 'http' | 'stdio';
/** The owner's answer to an elicitation (a client that has one declares the capability). */
export type Answer = (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;
export type ToolResult = Awaited<ReturnType<Client['callTool']>>;

const root = path.resolve(import.meta.dirname, '../..');

/**
 * A connected SDK client as the holder of `apiKey`; with `answer`, it declares elicitation (in the
 * given modes: a form by default, or a URL to open) and answers with it.
 */
export async function connectMcp(
  baseUrl: string,
  transport: Transport,
  apiKey: string,
  answer?: Answer,
  modes: readonly ('form' | 'url')[] = ['form'],
): Promise<Client> {
  const elicitation = Object.fromEntries(modes.map((m) => [m, {}]));
  const mcp = new Client({ name: 'test-agent', version: '1.0.0' }, answer ? { capabilities: { elicitation } } : {});
  if (answer) mcp.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params));
  await mcp.connect(
    transport === 'http'
      ? new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } })
      : new StdioClientTransport({
          command: process.execPath,
          args: ['src/mcp/stdio.ts'],
          cwd: root,
          env: { GIGMARKET_URL: baseUrl, GIGMARKET_API_KEY: apiKey, PATH: process.env.PATH ?? '' },
          stderr: 'pipe',
        }),
  );
  return mcp;
}

/** A tool result's structured content (the API's response body, or its error envelope). */
export const structured = (result: ToolResult) => result.structuredContent as Record<string, any>;
