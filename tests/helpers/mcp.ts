// The SDK's own MCP client, connected to a test server over either transport: Streamable HTTP
// against its /mcp, or stdio by spawning `node src/mcp/stdio.ts` pointed at it. It has listed the
// tools once connected, as a client does: from then on the SDK checks each result's structured
// content against its tool's output schema (a result that does not match fails the call).
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

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
  await mcp.listTools();
  return mcp;
}

/** A result's text contents, in order. */
export const texts = (result: ToolResult) => (result.content as { type: string; text: string }[]).map((c) => c.text);

/**
 * What a tool answered: a success's structured content (the API's response body), or an error's
 * envelope, which comes as JSON text only (structured content must match the success schema).
 */
export const structured = (result: ToolResult): Record<string, any> =>
  result.isError ? JSON.parse(texts(result)[0]!) : (result.structuredContent as Record<string, any>);

const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);

/**
 * Checks a body against a tool's output schema as JSON Schema 2020-12 reads it (MCP's default
 * dialect; the SDK's client reads draft-07): `check(name, body)` throws with what does not match.
 */
export function outputChecker(tools: readonly Tool[]): (name: string, body: unknown) => void {
  const compiled = new Map<string, ValidateFunction>();
  return (name, body) => {
    let validate = compiled.get(name);
    if (!validate) {
      const schema = tools.find((t) => t.name === name)?.outputSchema;
      if (!schema) throw new Error(`${name}: no output schema`);
      compiled.set(name, (validate = ajv.compile(schema)));
    }
    if (!validate(body)) throw new Error(`${name}: the result does not match its output schema: ${ajv.errorsText(validate.errors)}`);
  };
}

/** The value at a JSON Pointer (RFC 6901). */
export function at(value: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<any>((node, token) => node?.[token.replaceAll('~1', '/').replaceAll('~0', '~')], value);
}
