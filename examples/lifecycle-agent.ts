// An example pair of agents, written only against the client generated from openapi.yaml
// (openapi-fetch, with the openapi-typescript types in src/generated/api.d.ts): the client's agent
// and the worker's walk a gig from publication to released milestones, on a server running the
// sandbox payment provider.
//
// The agents draft; the owners decide: each approval is sent only after `confirm` returned the
// owner's yes to the exact terms (at the terminal, when run as a script). Two steps are the
// humans' own and happen on the sandbox's pages, not in the API: the worker's onboarding (KYC) at
// `connect_url`, and the client's payment at `payment_page_url` (with Stripe: Stripe's pages).
//
//   GIGMARKET_URL=http://localhost:3000 CLIENT_API_KEY=gm_live_… WORKER_API_KEY=gm_live_… node examples/lifecycle-agent.ts
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import createClient from 'openapi-fetch';
import type { components, paths } from '../src/generated/api.d.ts';

type Contract = components['schemas']['Contract'];
type Api = ReturnType<typeof createClient<paths>>;

export interface WalkOptions {
  baseUrl: string;
  clientKey: string;
  workerKey: string;
  /** The owner's explicit yes to these exact terms; an agent never approves on its own. */
  confirm: (owner: 'client' | 'worker', contract: Contract) => Promise<boolean>;
  log?: (line: string) => void;
}

export type WalkResult =
  | { outcome: 'completed'; gigId: string; contract: Contract; events: string[] }
  | { outcome: 'not_approved'; gigId: string; contract: Contract; owner: 'client' | 'worker' }
  /** The owner's approval policy is owner_confirms: only they approve, at confirmUrl. */
  | { outcome: 'owner_must_confirm'; gigId: string; contract: Contract; owner: 'client' | 'worker'; confirmUrl: string };

/** The data of a response, or an error carrying the API's envelope. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (data === undefined) throw new Error(`${response.url}: HTTP ${response.status} ${JSON.stringify(error)}`);
  return data;
}

/** A page of the sandbox provider (not part of the API): what the human's browser would post. */
async function sandboxPage(url: string, form: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(form),
  });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

export async function walkLifecycle(options: WalkOptions): Promise<WalkResult> {
  const log = options.log ?? (() => {});
  const agent = (key: string): Api => createClient<paths>({ baseUrl: options.baseUrl, headers: { authorization: `Bearer ${key}` } });
  const client = agent(options.clientKey);
  const worker = agent(options.workerKey);
  const workerId = (await ok(worker.GET('/api/keys/verify'))).user_id;

  // 1. The client's agent publishes a gig; the worker's agent finds it and applies.
  const title = `Build a log parser in Rust (${new Date().toISOString()})`;
  const gig = await ok(
    client.POST('/api/gigs', { body: { title, description: 'Parse nginx logs into JSON lines.', tags: ['rust'], rate_cents: 8000 } }),
  );
  log(`client: published gig ${gig.id}`);
  const found = await ok(worker.GET('/api/discovery/gigs', { params: { query: { q: 'rust log parser', tags: ['rust'], limit: 50 } } }));
  if (!found.data.some((g) => g.id === gig.id)) throw new Error('the worker did not find the gig');
  const application = await ok(
    worker.POST('/api/gigs/{id}/applications', { params: { path: { id: gig.id } }, body: { message: 'I have shipped three parsers.' } }),
  );
  log(`worker: applied (${application.id})`);

  // 2. The client's agent shortlists the application and proposes terms; the worker's counters; the client's agrees.
  await ok(client.POST('/api/applications/{id}/shortlist', { params: { path: { id: application.id } } }));
  const opened = await ok(
    client.POST('/api/negotiate', {
      body: {
        gig_id: gig.id,
        worker_user_id: workerId,
        rate_cents: 8000,
        hours_per_week: 10,
        start_date: '2026-12-01',
        payout_delay_days: 5,
        milestones: [{ title: 'Everything', amount_cents: 10_000 }],
      },
    }),
  );
  await ok(
    worker.POST('/api/negotiations/{id}/rounds', {
      params: { path: { id: opened.id } },
      body: {
        rate_cents: 9000,
        hours_per_week: 10,
        start_date: '2026-12-01',
        payout_delay_days: 3,
        milestones: [
          { title: 'Kick-off call', amount_cents: 0 },
          { title: 'Parser and tests', amount_cents: 12_000, due_date: '2026-12-15' },
        ],
        notes: 'Two milestones, please.',
      },
    }),
  );
  const agreed = await ok(client.POST('/api/negotiations/{id}/agree', { params: { path: { id: opened.id } } }));
  let contract = agreed.contract;
  log(`client: agreed; contract ${contract.id} awaits both owners`);

  // 3. Each owner approves, only after saying yes to these terms (naming the revision they saw).
  let connectUrl: string | null = null;
  for (const [owner, api] of [
    ['client', client],
    ['worker', worker],
  ] as const) {
    if (!(await options.confirm(owner, contract))) return { outcome: 'not_approved', gigId: gig.id, contract, owner };
    const approved = await ok(
      api.POST('/api/contracts/{id}/approve', {
        params: { path: { id: contract.id } },
        body: { revision_count: contract.revision_count, terms_hash: contract.terms_hash },
      }),
    );
    if (!('contract' in approved))
      return { outcome: 'owner_must_confirm', gigId: gig.id, contract, owner, confirmUrl: approved.confirm_url };
    contract = approved.contract;
    connectUrl = approved.connect_url ?? connectUrl;
    log(`${owner}'s owner approved`);
  }

  // 4. The worker completes onboarding on the provider's page (here the sandbox's, without a browser).
  if (connectUrl) {
    const url = new URL(connectUrl);
    await sandboxPage(url.origin + url.pathname, {
      token: url.searchParams.get('token') ?? '',
      return_url: url.searchParams.get('return_url') ?? '',
    });
  }
  contract = await ok(client.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } }));
  if (contract.status !== 'active') throw new Error(`the contract is ${contract.status}, not active`);

  // 5. The client's agent funds each milestone (the client pays on the provider's page), then releases it.
  for (const milestone of contract.milestones) {
    const path = { id: contract.id, milestoneId: milestone.id };
    const funded = await ok(client.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path } }));
    if (funded.payment_page_url && funded.client_secret)
      await sandboxPage(funded.payment_page_url, { client_secret: funded.client_secret });
    const released = await ok(client.POST('/api/contracts/{id}/milestones/{milestoneId}/release', { params: { path } }));
    contract = released.contract;
    log(`client: released "${milestone.title}"; the contract is ${contract.status}`);
  }

  // 6. What the worker's agent saw happen, oldest first.
  const events = await ok(worker.GET('/api/events', { params: { query: { resource_id: contract.id, limit: 100 } } }));
  return { outcome: 'completed', gigId: gig.id, contract, events: events.data.map((e) => e.type).reverse() };
}

/** The terms, for the owner to read before answering. */
export function describeTerms(contract: Contract): string {
  const money = (cents: number) => `${(cents / 100).toFixed(2)} ${contract.currency}`;
  return [
    `Contract ${contract.id} (revision_count ${contract.revision_count})`,
    `  rate ${contract.rate_cents === null ? '-' : money(contract.rate_cents)}/h, ${contract.hours_per_week ?? '-'} h/week, from ${contract.start_date ?? '-'}`,
    `  payout ${contract.payout_delay_days} days after each release`,
    ...contract.milestones.map((m) => `  - ${m.title}: ${money(m.amount_cents)}${m.due_date ? ` by ${m.due_date}` : ''}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const env = (name: string) => process.env[name] ?? (console.error(`set ${name}`), process.exit(2));
  const terminal = createInterface({ input: process.stdin });
  // Answers typed, or piped (`printf 'y\ny\n' | ...`), ahead of their question wait for it.
  const answers = terminal[Symbol.asyncIterator]();
  try {
    const result = await walkLifecycle({
      baseUrl: env('GIGMARKET_URL'),
      clientKey: env('CLIENT_API_KEY'),
      workerKey: env('WORKER_API_KEY'),
      log: console.log,
      confirm: async (owner, contract) => {
        process.stdout.write(`\n${describeTerms(contract)}\nOwner of the ${owner} key: approve these terms? [y/N] `);
        const answer = await answers.next();
        return !answer.done && answer.value.trim().toLowerCase() === 'y';
      },
    });
    console.log(
      result.outcome === 'completed'
        ? `completed; events: ${result.events.join(', ')}`
        : result.outcome === 'owner_must_confirm'
          ? `the ${result.owner}'s owner approves in person at ${result.confirmUrl}`
          : `not approved by the ${result.owner}'s owner`,
    );
  } finally {
    terminal.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
