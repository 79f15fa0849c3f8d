// /arazzo.yaml (src/http/arazzo.ts): arazzo.yaml as served, Arazzo 1.0.1 over openapi.yaml, every
// step an operation of the spec (or a workflow of the document, or a sandbox page by Redocly's
// x-operation), every step with success criteria; and llms.txt and the API reference link it.
// That the workflows run is `npm run check:arazzo` (CI), with `redocly respect`.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/project-root.ts';
import { listOperations, loadSpec } from '../../src/spec.ts';
import { testFileServer } from '../helpers/server.ts';

const spec = loadSpec();
const server = testFileServer();

interface Step {
  stepId: string;
  operationId?: string;
  workflowId?: string;
  'x-operation'?: { url: string; method: string };
  successCriteria?: { condition: string }[];
  outputs?: Record<string, string>;
}
interface Workflow {
  workflowId: string;
  steps: Step[];
}

async function served() {
  const res = await fetch(`${server.url}/arazzo.yaml`);
  const text = await res.text();
  return { res, text, document: YAML.parse(text) as { arazzo: string; sourceDescriptions: unknown[]; workflows: Workflow[] } };
}

describe('/arazzo.yaml', () => {
  it('is arazzo.yaml, public, as YAML: Arazzo 1.0.1 whose one source is ./openapi.yaml, which resolves beside it', async () => {
    const { res, text, document } = await served();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    expect(text).toBe(fs.readFileSync(path.join(PROJECT_ROOT, 'arazzo.yaml'), 'utf8'));
    expect(document.arazzo).toBe('1.0.1');
    expect(document.sourceDescriptions).toEqual([{ name: 'gigmarket', url: './openapi.yaml', type: 'openapi' }]);
    const source = await fetch(new URL('./openapi.yaml', res.url));
    expect(source.status).toBe(200);
    expect((YAML.parse(await source.text()) as { info: { title: string } }).info.title).toBe(spec.info.title);
  });

  it('names only operations of openapi.yaml and workflows of its own, and every step says what must hold after it', async () => {
    const { document } = await served();
    const operationIds = new Set(listOperations(spec).map((op) => op.operationId));
    const workflowIds = new Set(document.workflows.map((w) => w.workflowId));
    expect([...workflowIds]).toEqual(['agree-on-terms', 'lifecycle', 'revise']);
    const named: string[] = [];
    for (const workflow of document.workflows) {
      for (const step of workflow.steps) {
        const where = `${workflow.workflowId}/${step.stepId}`;
        expect(step.successCriteria?.length, where).toBeGreaterThan(0);
        const targets = [step.operationId, step.workflowId, step['x-operation']].filter((t) => t !== undefined);
        expect(targets, where).toHaveLength(1);
        if (step.operationId) {
          expect(operationIds, where).toContain(step.operationId);
          named.push(step.operationId);
        }
        if (step.workflowId) expect(workflowIds, where).toContain(step.workflowId);
        // Outside the spec only the sandbox provider's pages, at a URL an earlier step returned.
        if (step['x-operation'])
          expect(step['x-operation'].url, where).toMatch(/^\$steps\.[\w-]+\.outputs\.(connect_url|payment_page_url)$/);
      }
    }
    // The journey: from a gig to a payout, and the revise path.
    for (const id of ['createGig', 'applyToGig', 'shortlistApplication', 'negotiate', 'proposeRound', 'agreeNegotiation'])
      expect(named, id).toContain(id);
    for (const id of ['approveContract', 'getConnectLink', 'fundMilestone', 'releaseMilestone', 'reviseContract', 'listContractApprovals'])
      expect(named, id).toContain(id);
  });

  it('is linked from llms.txt and from the API reference (the spec’s externalDocs)', async () => {
    const llms = await (await fetch(`${server.url}/llms.txt`)).text();
    expect(llms).toContain(`(${server.url}/arazzo.yaml)`);
    const published = (await (await fetch(`${server.url}/openapi.json`)).json()) as { externalDocs: { url: string } };
    expect(new URL(published.externalDocs.url, `${server.url}/docs/`).href).toBe(`${server.url}/arazzo.yaml`);
  });
});
