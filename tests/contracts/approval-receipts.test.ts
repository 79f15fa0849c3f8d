// Approvals bound to the terms, with receipts anyone can verify: the terms hash as documented
// (recomputed here from the spec's description, not from the server's code), approvals that name
// a stale hash refused with nothing recorded, each approval's receipt verified with the published
// JWKS (and failing when a byte changes), key rotation keeping old receipts verifiable.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import canonicalize from 'canonicalize';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { asApproval, pendingContract } from '../helpers/lifecycle.ts';
import { signInDev } from '../helpers/session.ts';
import { expectError } from '../helpers/expect-error.ts';
import { contractApprovals, contracts } from '../../db/schema.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { rotateReceiptKey } from '../../src/services/receipts.ts';
import { termsHash, termsOf, TERMS_FORMAT } from '../../src/domain/terms-hash.ts';
import type { components } from '../../src/generated/api.d.ts';

type Contract = components['schemas']['Contract'];
const server = testFileServer();
let stranger: User;

beforeAll(async () => {
  stranger = await server.user('Stranger');
});

async function pair() {
  return { client: await server.user('Client'), worker: await server.user('Worker') };
}

/** The terms hash as the spec's TermsHash describes it, computed without the server's code. */
function documentedHash(c: Contract): string {
  const terms = {
    format: 'gigmarket.contract-terms.v1',
    contract_id: c.id,
    revision_count: c.revision_count,
    gig_id: c.gig_id,
    client_user_id: c.client_user_id,
    worker_user_id: c.worker_user_id,
    currency: c.currency,
    rate_cents: c.rate_cents,
    hours_per_week: c.hours_per_week,
    start_date: c.start_date,
    payout_delay_days: c.payout_delay_days,
    milestones: [...c.milestones]
      .sort((a, b) => a.position - b.position)
      .map((m) => ({ position: m.position, title: m.title, amount_cents: m.amount_cents, due_date: m.due_date })),
  };
  return createHash('sha256').update(canonicalize(terms)!, 'utf8').digest('hex');
}

const jwksUrl = () => new URL(`${server.url}/.well-known/jwks.json`);
const verify = (receipt: string) =>
  jwtVerify(receipt, createRemoteJWKSet(jwksUrl(), { cacheMaxAge: 0, cooldownDuration: 0 }), {
    issuer: server.config.publicUrl,
    typ: 'gigmarket-approval+jwt',
    algorithms: ['EdDSA'],
  });
/** An approval (200), typed as one. */
const approve = async (user: { api: User['api'] }, id: string, body?: { revision_count?: number; terms_hash?: string }) =>
  asApproval(await user.api.POST('/api/contracts/{id}/approve', { params: { path: { id } }, ...(body ? { body } : {}) }));
const approvals = (user: { api: User['api'] }, id: string) => user.api.GET('/api/contracts/{id}/approvals', { params: { path: { id } } });
const approvalRows = (id: string) => server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, id));

describe('the terms hash', () => {
  it('is fixed by the terms alone: the same bytes give the same hash on any database, after any restart', () => {
    const terms = termsOf({
      id: '0190a5b6-4d5e-7f6a-8b7c-8d9e0f1a2b3c',
      revision_count: 0,
      gig_id: '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
      client_user_id: '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b',
      worker_user_id: '0190a5b2-9e5f-7a6b-8c3d-4e5f6a7b8c9d',
      currency: 'USD',
      rate_cents: 8000,
      hours_per_week: 20,
      start_date: '2026-12-01',
      payout_delay_days: 5,
      milestones: [{ position: 1, title: 'Parser and tests', amount_cents: 120000, due_date: '2026-12-15' }],
    });
    expect(terms.format).toBe(TERMS_FORMAT);
    // The spec's own example value (TermsHash, the example contract's hash): a change of the form shows here.
    expect(termsHash(terms)).toBe('b3ee0ed0cf67b9c30ed1bcbb067742e2d14d1169a55ca0f58e3963405c264b2b');
    expect(termsHash({ ...terms, milestones: [{ ...terms.milestones[0]!, title: 'Parser and tests.' }] })).not.toBe(termsHash(terms));
  });

  it('is on every contract, as the spec documents it, and changes with a revise but not with an approval', async () => {
    const { client, worker } = await pair();
    const { contract, negotiation } = await pendingContract(client, worker, [
      { title: 'Zwei', amount_cents: 200, due_date: '2026-12-20' },
      { title: 'Ünïcödé “quotes” \\ / 🦀', amount_cents: 100 },
    ]);
    expect(contract.terms_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(contract.terms_hash).toBe(documentedHash(contract));
    const approved = await approve(client, contract.id);
    expect(approved.data!.contract.terms_hash).toBe(contract.terms_hash);
    const revised = await worker.api.POST('/api/contracts/{id}/revise', {
      params: { path: { id: contract.id } },
      body: { notes: 'Again.' },
    });
    expect(revised.data!.terms_hash).not.toBe(contract.terms_hash);
    expect(revised.data!.terms_hash).toBe(documentedHash(revised.data!));
    expect(negotiation.id).toBe(revised.data!.negotiation_id);
  });
});

describe('POST /api/contracts/{id}/approve with terms_hash', () => {
  it('a hash that is not the current one is refused and records nothing', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    const stale = documentedHash({ ...contract, milestones: [{ ...contract.milestones[0]!, amount_cents: 1 }] });
    const res = await client.api.POST('/api/contracts/{id}/approve', {
      params: { path: { id: contract.id } },
      body: { terms_hash: stale },
    });
    expectError(res, 409, 'INVALID_STATE', /terms changed/);
    const [row] = await server.db.select().from(contracts).where(eq(contracts.id, contract.id));
    expect(row!.clientApprovedAt).toBeNull();
    expect(row!.clientApprovalMethod).toBeNull();
    expect(await approvalRows(contract.id)).toEqual([]);
    expect((await eventsForResource(server.db, 'contract', contract.id)).map((e) => e.type)).toEqual(['contract.created']);
  });

  it('a malformed hash is a validation error', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    const res = await client.api.POST('/api/contracts/{id}/approve', {
      params: { path: { id: contract.id } },
      body: { terms_hash: 'ABC' } as never,
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(await approvalRows(contract.id)).toEqual([]);
  });

  it('the current hash approves', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    const res = await approve(client, contract.id, { terms_hash: contract.terms_hash, revision_count: 0 });
    expect(res.response.status).toBe(200);
    expect(res.data!.contract.client_approval_method).toBe('api_key');
    expect((await approvalRows(contract.id)).map((a) => a.termsHash)).toEqual([contract.terms_hash]);
  });
});

describe('receipts', () => {
  it('each approval has a receipt that verifies with the published keys and states the approval', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
    const session = await signInDev(server, { userId: worker.userId });
    const second = await approve(session, contract.id);
    expect(second.response.status).toBe(200);
    expect(second.data!.contract).toMatchObject({ client_approval_method: 'api_key', worker_approval_method: 'session' });

    const listed = await approvals(worker, contract.id);
    expect(listed.response.status).toBe(200);
    expect(listed.data!.data.map((a) => [a.party_role, a.method, a.api_key_id])).toEqual([
      ['client', 'api_key', client.apiKeyId],
      ['worker', 'session', null],
    ]);
    expect((await approvals(client, contract.id)).data).toEqual(listed.data);
    for (const a of listed.data!.data) {
      const { payload, protectedHeader } = await verify(a.receipt);
      expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'gigmarket-approval+jwt' });
      expect(payload).toMatchObject({
        iss: server.config.publicUrl,
        sub: a.user_id,
        jti: a.id,
        contract_id: contract.id,
        revision_count: 0,
        terms_hash: contract.terms_hash,
        party_role: a.party_role,
        method: a.method,
        api_key_id: a.api_key_id,
        hosted_agent_id: null,
        approved_at: a.approved_at,
      });
      // The receipt names the terms: the contract's terms as shown hash to it.
      expect(payload.terms_hash).toBe(documentedHash(second.data!.contract));
    }
    const rows = await approvalRows(contract.id);
    expect(rows.map((r) => r.receipt).sort()).toEqual(listed.data!.data.map((a) => a.receipt).sort());

    // The approval events carry the method and the hash (the contract as shown after the change).
    const events = await eventsForResource(server.db, 'contract', contract.id);
    const approvedEvents = events.filter((e) => e.type === 'contract.approved').map((e) => e.data as Contract);
    expect(approvedEvents.map((d) => [d.client_approval_method, d.worker_approval_method, d.terms_hash])).toEqual([
      ['api_key', null, contract.terms_hash],
      ['api_key', 'session', contract.terms_hash],
    ]);
  });

  it('a receipt with any byte changed does not verify', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
    const [approval] = (await approvals(client, contract.id)).data!.data;
    const [header, payload, signature] = approval!.receipt.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, terms_hash: documentedHash({ ...contract, rate_cents: 1 }) })).toString(
      'base64url',
    );
    await expect(verify(`${header}.${forged}.${signature}`)).rejects.toThrow(/signature/);
    const flipped = signature.slice(0, 10) + (signature[10] === 'A' ? 'B' : 'A') + signature.slice(11);
    await expect(verify(`${header}.${payload}.${flipped}`)).rejects.toThrow(/signature/);
    await expect(verify(approval!.receipt)).resolves.toBeTruthy();
  });

  it('after a key rotation, old receipts still verify and new ones are signed by the new key', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
    const before = (await approvals(client, contract.id)).data!.data[0]!.receipt;
    const oldKid = decodeProtectedHeader(before).kid;

    const newKid = await rotateReceiptKey(server.db);
    expect(newKid).not.toBe(oldKid);
    const jwks = await fetch(jwksUrl());
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    const set = (await jwks.json()) as { keys: { kid: string }[] };
    expect(set.keys[0]!.kid).toBe(newKid);
    expect(set.keys.map((k) => k.kid)).toContain(oldKid);

    await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
    const after = (await approvals(client, contract.id)).data!.data[1]!.receipt;
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    const local = createLocalJWKSet(set as never);
    await expect(jwtVerify(before, local)).resolves.toBeTruthy();
    await expect(jwtVerify(after, local)).resolves.toBeTruthy();
  });
});

describe('GET /api/contracts/{id}/approvals', () => {
  it('keeps every revision’s approvals after a revise, for the parties only', async () => {
    const { client, worker } = await pair();
    const { contract } = await pendingContract(client, worker);
    await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
    const revised = await worker.api.POST('/api/contracts/{id}/revise', {
      params: { path: { id: contract.id } },
      body: { notes: 'Again.' },
    });
    expect(revised.data).toMatchObject({ client_approved_at: null, client_approval_method: null });
    const listed = await approvals(client, contract.id);
    expect(listed.data!.data.map((a) => [a.revision_count, a.terms_hash])).toEqual([[0, contract.terms_hash]]);

    expectError(await approvals(stranger, contract.id), 404, 'NOT_FOUND');
    expectError(
      await server.anonymous.GET('/api/contracts/{id}/approvals', { params: { path: { id: contract.id } } }),
      401,
      'UNAUTHENTICATED',
    );
  });
});
