// /llms.txt and /llms-full.txt: public, plain text, generated from the spec.
import { describe, expect, it } from 'vitest';
import { listOperations, loadSpec } from '../../src/spec.ts';
import { MCP_OPERATIONS } from '../../src/mcp/operations.ts';
import { testFileServer } from '../helpers/server.ts';

const spec = loadSpec();
const server = testFileServer();

async function get(path: string) {
  const res = await fetch(`${server.url}${path}`);
  return { res, text: await res.text() };
}

describe('/llms.txt', () => {
  it('is public plain text that says what the service is, how to authenticate and where the MCP endpoint is', async () => {
    const { res, text } = await get('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.startsWith(`# ${spec.info.title}\n\n> ${spec.info.summary}`)).toBe(true);
    expect(text).toContain('Authorization: Bearer <key>');
    expect(text).toContain('x-api-key');
    expect(text).toContain(`${server.url}/mcp`);
    expect(text).toContain('npm run -s mcp');
    expect(text).toContain(`${server.url}/openapi.yaml`);
    expect(text).toContain(`${server.url}/llms-full.txt`);
  });

  it('states the draft-only rule and lists the lifecycle in order, every tool with its method and path', async () => {
    const { text } = await get('/llms.txt');
    expect(text).toMatch(/## Agents draft, owners approve\n\n.*binds only when both human owners\s+have approved it/);
    expect(text).toContain(`${server.url}/#/contracts/{id}`);
    const operations = new Map(listOperations(spec).map((op) => [op.operationId, op]));
    let last = -1;
    for (const { operationId } of MCP_OPERATIONS) {
      const op = operations.get(operationId)!;
      const at = text.indexOf(`\`${operationId}\`: ${op.method.toUpperCase()} ${op.path}: ${op.operation.summary}`);
      expect(at, operationId).toBeGreaterThan(last);
      last = at;
    }
  });
});

describe('/llms-full.txt', () => {
  it('holds llms.txt, the rest of the introduction, and every operation with its description', async () => {
    const [{ text: short }, { res, text }] = await Promise.all([get('/llms.txt'), get('/llms-full.txt')]);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.startsWith(short.trimEnd())).toBe(true);
    for (const heading of ['Errors', 'Retries', 'Rate limits', 'Conventions']) expect(text).toContain(`## ${heading}\n`);
    for (const op of listOperations(spec)) {
      expect(text).toContain(`#### \`${op.operationId}\`: ${op.method.toUpperCase()} ${op.path}: ${op.operation.summary}`);
      if (op.operation.description) expect(text).toContain(op.operation.description.trim());
    }
  });
});
