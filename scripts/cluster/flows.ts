// The cluster check's mixed load, as agents would drive it through the balancer: a client and a
// worker walking a gig to paid milestones on the sandbox provider (webhook endpoints on the
// check's receiver, a search, an application, a shortlist, a counter-round, both approvals,
// onboarding, funding and releases, a deduction of credits), discovery searches, and MCP clients
// calling tools on one session each. Every POST carries an Idempotency-Key and is retried with it
// while the answer says the instance died under it or its key is still held, as the retries guide
// asks of a client; what each step acknowledged is recorded for the checks.
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { paths } from '../../src/generated/api.d.ts';
import { RETRYABLE, type Traffic } from './traffic.ts';

export interface Agent {
  userId: string;
  apiKeyId: string;
  apiKey: string;
}

/** What a flow's 2xx answers acknowledged: each must be readable, and hold, afterwards. */
export interface FlowRecord {
  client: Agent;
  worker: Agent;
  /** Read back afterwards by their owner (GET {path}). */
  created: { path: string; id: string; owner: Agent }[];
  endpoints: { id: string; userId: string }[];
  contractId?: string;
  milestones: { id: string; amountCents: number; funded: boolean; released: boolean }[];
  deductionRef: string;
  deducted: boolean;
  done: boolean;
  error?: string;
}

export interface LoadContext {
  base: string;
  traffic: Traffic;
  receiverUrl: string;
  /** How long one step keeps retrying before the flow gives up (and the check fails). */
  stepDeadlineMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Api = ReturnType<typeof createClient<paths>>;

export function apiFor(ctx: LoadContext, agent: Agent): Api {
  return createClient<paths>({ baseUrl: ctx.base, fetch: ctx.traffic.fetch, headers: { authorization: `Bearer ${agent.apiKey}` } });
}

/**
 * One call, retried while it should be: no answer, a 5xx, or a 409 with Retry-After (the key is
 * held by an attempt that may have died). The same `attempt` is sent each time, so a POST keeps
 * its Idempotency-Key; anything else that is not 2xx ends the flow.
 */
export async function retried<T extends { response: Response; error?: unknown }>(
  ctx: LoadContext,
  what: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + ctx.stepDeadlineMs;
  for (;;) {
    let result: T | undefined;
    try {
      result = await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: no answer (${(err as Error).message})`);
    }
    if (result?.response.ok) return result;
    if (result) {
      const status = result.response.status;
      const retryAfter = Number(result.response.headers.get('retry-after') ?? Number.NaN);
      const again = RETRYABLE.has(status) && (status !== 409 || Number.isFinite(retryAfter));
      if (!again || Date.now() > deadline) throw new Error(`${what}: ${status} ${JSON.stringify(result.error ?? '').slice(0, 300)}`);
      await sleep(Number.isFinite(retryAfter) ? Math.min(retryAfter * 1000, 2000) : 300);
    } else await sleep(300);
  }
}

/** A POST of a sandbox page (no key, no Idempotency-Key: the page's event id makes a repeat a duplicate). */
async function sandboxPost(ctx: LoadContext, what: string, url: string, body: object): Promise<{ outcome: string }> {
  const { data } = await retried(ctx, what, async () => {
    const response = await ctx.traffic.fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { response, data: response.ok ? (JSON.parse(text) as { outcome: string }) : undefined, error: response.ok ? undefined : text };
  });
  return data!;
}

const idem = () => ({ 'idempotency-key': randomUUID() });

/** A gig from its client's first request to both milestones released, and a deduction of the client's credits. */
export async function lifecycleFlow(ctx: LoadContext, client: Agent, worker: Agent, n: number): Promise<FlowRecord> {
  const record: FlowRecord = {
    client,
    worker,
    created: [],
    endpoints: [],
    milestones: [],
    deductionRef: `cluster-${n}`,
    deducted: false,
    done: false,
  };
  const c = apiFor(ctx, client);
  const w = apiFor(ctx, worker);
  const step = <T extends { response: Response; error?: unknown }>(what: string, attempt: () => Promise<T>) => retried(ctx, what, attempt);
  try {
    for (const [agent, api] of [
      [client, c],
      [worker, w],
    ] as const) {
      const headers = idem();
      const hook = await step('createWebhookEndpoint', () =>
        api.POST('/api/webhooks', { body: { url: `${ctx.receiverUrl}/hooks/${agent.userId}` }, headers }),
      );
      record.endpoints.push({ id: hook.data!.id, userId: agent.userId });
      record.created.push({ path: `/api/webhooks/${hook.data!.id}`, id: hook.data!.id, owner: agent });
    }
    const gigHeaders = idem();
    const gig = await step('createGig', () =>
      c.POST('/api/gigs', {
        body: { title: `Cluster gig ${n}: a log parser in Rust`, tags: ['rust', 'cli'], rate_cents: 8000 },
        headers: gigHeaders,
      }),
    );
    const gigId = gig.data!.id;
    record.created.push({ path: `/api/gigs/${gigId}`, id: gigId, owner: client });
    await step('searchGigs', () => w.GET('/api/discovery/gigs', { params: { query: { q: 'rust parser' } } }));
    const applyHeaders = idem();
    const applied = await step('applyToGig', () =>
      w.POST('/api/gigs/{id}/applications', {
        params: { path: { id: gigId } },
        body: { message: 'I have shipped parsers.' },
        headers: applyHeaders,
      }),
    );
    const applicationId = applied.data!.id;
    record.created.push({ path: `/api/applications/${applicationId}`, id: applicationId, owner: worker });
    const shortlistHeaders = idem();
    await step('shortlistApplication', () =>
      c.POST('/api/applications/{id}/shortlist', { params: { path: { id: applicationId } }, headers: shortlistHeaders }),
    );
    const negotiateHeaders = idem();
    const opened = await step('negotiate', () =>
      c.POST('/api/negotiate', {
        body: {
          gig_id: gigId,
          worker_user_id: worker.userId,
          rate_cents: 8000,
          hours_per_week: 10,
          start_date: '2026-12-01',
          payout_delay_days: 3,
          milestones: [{ title: 'Everything', amount_cents: 10_000 }],
        },
        headers: negotiateHeaders,
      }),
    );
    const negotiationId = opened.data!.id;
    record.created.push({ path: `/api/negotiations/${negotiationId}`, id: negotiationId, owner: client });
    const roundHeaders = idem();
    await step('counterRound', () =>
      w.POST('/api/negotiations/{id}/rounds', {
        params: { path: { id: negotiationId } },
        body: {
          rate_cents: 9000,
          payout_delay_days: 3,
          milestones: [
            { title: 'Kick-off call', amount_cents: 0 },
            { title: 'Parser and tests', amount_cents: 12_000 },
          ],
        },
        headers: roundHeaders,
      }),
    );
    const agreeHeaders = idem();
    const agreed = await step('agree', () =>
      c.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiationId } }, headers: agreeHeaders }),
    );
    const contract = agreed.data!.contract!;
    record.contractId = contract.id;
    record.created.push({ path: `/api/contracts/${contract.id}`, id: contract.id, owner: client });
    record.milestones = contract.milestones.map((m) => ({ id: m.id, amountCents: m.amount_cents, funded: false, released: false }));
    const id = contract.id;
    const approveC = idem();
    await step('approve (client)', () =>
      c.POST('/api/contracts/{id}/approve', { params: { path: { id } }, body: { revision_count: 0 }, headers: approveC }),
    );
    const approveW = idem();
    const approved = await step('approve (worker)', () =>
      w.POST('/api/contracts/{id}/approve', { params: { path: { id } }, body: { revision_count: 0 }, headers: approveW }),
    );
    const connectUrl = 'connect_url' in approved.data! ? approved.data.connect_url : undefined;
    if (!connectUrl) throw new Error('approve (worker): no connect_url');
    const onboardingUrl = new URL(connectUrl);
    await sandboxPost(ctx, 'sandbox onboarding', `${ctx.base}${onboardingUrl.pathname}`, {
      token: onboardingUrl.searchParams.get('token'),
      return_url: onboardingUrl.searchParams.get('return_url'),
    });
    for (const m of record.milestones) {
      const fundHeaders = idem();
      const fund = await step('fund', () =>
        c.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path: { id, milestoneId: m.id } }, headers: fundHeaders }),
      );
      if (fund.data!.payment_page_url) {
        const page = new URL(fund.data!.payment_page_url);
        await sandboxPost(ctx, 'sandbox payment', `${ctx.base}${page.pathname}`, { client_secret: fund.data!.client_secret });
      }
      m.funded = true;
    }
    for (const m of record.milestones) {
      const releaseHeaders = idem();
      await step('release', () =>
        c.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
          params: { path: { id, milestoneId: m.id } },
          headers: releaseHeaders,
        }),
      );
      m.released = true;
    }
    const deductHeaders = idem();
    await step('deductCredits', () =>
      c.POST('/api/credits', { body: { amount: 1, reason: 'match_deduction', reference_id: record.deductionRef }, headers: deductHeaders }),
    );
    record.deducted = true;
    record.done = true;
  } catch (err) {
    record.error = (err as Error).message;
  }
  return record;
}

/** Discovery searches by `agents` in turn, `pauseMs` apart, until `until()` is false. */
export async function searchLoop(
  ctx: LoadContext,
  agents: Agent[],
  pauseMs: number,
  until: () => boolean,
): Promise<{ done: number; failed: number }> {
  const queries = ['rust parser', 'log parser', 'cli tool in rust', 'parser and tests', 'gig'];
  let i = 0;
  let failedCount = 0;
  while (until()) {
    const agent = agents[i % agents.length]!;
    const result = await apiFor(ctx, agent)
      .GET('/api/discovery/gigs', { params: { query: { q: queries[i % queries.length]! } } })
      .catch(() => undefined);
    if (!result?.response.ok) failedCount++;
    i++;
    await sleep(pauseMs);
  }
  return { done: i, failed: failedCount };
}

export interface McpRun {
  calls: number;
  failures: number;
  /** Calls answered after the kill, on the session opened before it. */
  afterKill: number;
  sessionBefore: string | undefined;
  sessionAfter: string | undefined;
  errors: string[];
}

/** How long a tool call may take: the SDK's own default is a minute, for calls that wait on people. */
const MCP_CALL_TIMEOUT_MS = 10_000;

/**
 * An MCP client on one session through the balancer, calling read tools every 300 ms until
 * `until()` is false and it has made three calls since the kill; a failed call is made again
 * (once the instance it was on is gone, the survivors serve the same session, kept in Postgres).
 */
export async function mcpLoop(ctx: LoadContext, agent: Agent, until: () => boolean): Promise<McpRun> {
  const run: McpRun = { calls: 0, failures: 0, afterKill: 0, sessionBefore: undefined, sessionAfter: undefined, errors: [] };
  const transport = new StreamableHTTPClientTransport(new URL(`${ctx.base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${agent.apiKey}` } },
    fetch: ctx.traffic.fetch,
  });
  const mcp = new Client({ name: 'cluster-check', version: '1.0.0' });
  mcp.onerror = () => {}; // the event stream of a killed instance ends; calls go on over POST
  await mcp.connect(transport);
  run.sessionBefore = transport.sessionId;
  const tools = ['listGigs', 'verifyApiKey'];
  const deadline = Date.now() + 5 * 60_000;
  while ((until() || (ctx.traffic.killedAt !== undefined && run.afterKill < 3)) && Date.now() < deadline) {
    const name = tools[run.calls % tools.length]!;
    const started = performance.now();
    try {
      const result = await mcp.callTool({ name, arguments: {} }, undefined, { timeout: MCP_CALL_TIMEOUT_MS });
      if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 200));
      if (ctx.traffic.killedAt !== undefined && started > ctx.traffic.killedAt) run.afterKill++;
    } catch (err) {
      run.failures++;
      if (run.errors.length < 5) run.errors.push(`${name}: ${(err as Error).message.slice(0, 200)}`);
    }
    run.calls++;
    await sleep(300);
  }
  run.sessionAfter = transport.sessionId;
  await mcp.close().catch(() => {});
  return run;
}
