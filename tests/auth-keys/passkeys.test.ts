// Passkeys over HTTP, without a browser (the full ceremony in Chromium is in
// tests/dashboard/dashboard-passkeys.test.ts): only a browser session manages them; options name
// this server as the relying party; a challenge is one use; a credential or an assertion that does
// not verify is refused and changes nothing; once an owner has a passkey, a session's approval
// without it is 403 PASSKEY_REQUIRED and records nothing; a key may not send one.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { signInDev, type BrowserSession } from '../helpers/session.ts';
import { expectError } from '../helpers/expect-error.ts';
import { contractApprovals, contracts, passkeys, webauthnChallenges } from '../../db/schema.ts';
import { newId } from '../../src/ids.ts';

const server = testFileServer();
let owner: User;
let session: BrowserSession;

beforeAll(async () => {
  owner = await server.user('Passkey Owner');
  session = await signInDev(server, { userId: owner.userId });
});

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
/** What a browser would send, signed by nobody: the client data names the challenge and this origin. */
const clientData = (type: string, challenge: string) => b64url(JSON.stringify({ type, challenge, origin: server.url, crossOrigin: false }));
const fakeRegistration = (challenge: string) => ({
  id: b64url(randomBytes(16)),
  rawId: b64url(randomBytes(16)),
  type: 'public-key' as const,
  clientExtensionResults: {},
  response: { clientDataJSON: clientData('webauthn.create', challenge), attestationObject: b64url(randomBytes(64)) },
});
const fakeAssertion = (credentialId: string, challenge: string) => ({
  id: credentialId,
  rawId: credentialId,
  type: 'public-key' as const,
  clientExtensionResults: {},
  response: {
    clientDataJSON: clientData('webauthn.get', challenge),
    authenticatorData: b64url(randomBytes(37)),
    signature: b64url(randomBytes(64)),
  },
});
/** A passkey as if registered (its key is random: no signature will verify). */
async function storedPasskey(userId: string) {
  const credentialId = b64url(randomBytes(16));
  await server.db.insert(passkeys).values({
    id: newId(),
    userId,
    credentialId,
    publicKey: b64url(randomBytes(77)),
    counter: 0,
    transports: ['internal'],
    name: 'Stored',
  });
  return credentialId;
}
const contractRow = async (id: string) => (await server.db.select().from(contracts).where(eq(contracts.id, id)))[0]!;
const approvalRows = (id: string) => server.db.select().from(contractApprovals).where(eq(contractApprovals.contractId, id));

describe('managing passkeys', () => {
  it('needs a browser session: an API key gets 403 everywhere', async () => {
    expectError(await owner.api.GET('/api/passkeys'), 403, 'FORBIDDEN', /browser session/);
    expectError(await owner.api.POST('/api/passkeys/registration-options'), 403, 'FORBIDDEN');
    expectError(await owner.api.POST('/api/passkeys', { body: { name: 'x', credential: fakeRegistration('abc') } }), 403, 'FORBIDDEN');
    expectError(await owner.api.DELETE('/api/passkeys/{id}', { params: { path: { id: newId() } } }), 403, 'FORBIDDEN');
    expectError(await owner.api.POST('/api/contracts/{id}/approval-challenge', { params: { path: { id: newId() } } }), 403, 'FORBIDDEN');
  });

  it('gives registration options for this server, with a one-use challenge; a credential that does not verify is refused', async () => {
    expect((await session.api.GET('/api/passkeys')).data).toEqual({ data: [] });
    const res = await session.api.POST('/api/passkeys/registration-options');
    expect(res.response.status).toBe(200);
    const options = res.data!.options as {
      challenge: string;
      rp: { id: string; name: string };
      user: { name: string };
      attestation: string;
    };
    expect(options).toMatchObject({ rp: { id: '127.0.0.1', name: 'gigmarket' }, user: { name: 'Passkey Owner' }, attestation: 'none' });
    const [stored] = await server.db.select().from(webauthnChallenges).where(eq(webauthnChallenges.challenge, options.challenge));
    expect(stored).toMatchObject({ userId: owner.userId, purpose: 'register' });

    const refused = await session.api.POST('/api/passkeys', { body: { name: 'Laptop', credential: fakeRegistration(options.challenge) } });
    expectError(refused, 400, 'VALIDATION_FAILED', /could not be verified/);
    // Spent: the same challenge is not open any more.
    const again = await session.api.POST('/api/passkeys', { body: { name: 'Laptop', credential: fakeRegistration(options.challenge) } });
    expectError(again, 400, 'VALIDATION_FAILED', /not the answer to an open registration challenge/);
    const unknown = await session.api.POST('/api/passkeys', { body: { name: 'Laptop', credential: fakeRegistration('bm90LWlzc3VlZA') } });
    expectError(unknown, 400, 'VALIDATION_FAILED', /not the answer to an open registration challenge/);
    expect(await server.db.select().from(passkeys).where(eq(passkeys.userId, owner.userId))).toEqual([]);
  });

  it("removes only the caller's own passkeys", async () => {
    const other = await server.user('Other Owner');
    await storedPasskey(other.userId);
    const [theirs] = await server.db.select().from(passkeys).where(eq(passkeys.userId, other.userId));
    expectError(await session.api.DELETE('/api/passkeys/{id}', { params: { path: { id: theirs!.id } } }), 404, 'NOT_FOUND');
    const otherSession = await signInDev(server, { userId: other.userId });
    expect((await otherSession.api.DELETE('/api/passkeys/{id}', { params: { path: { id: theirs!.id } } })).response.status).toBe(204);
    expect((await otherSession.api.GET('/api/passkeys')).data).toEqual({ data: [] });
  });
});

describe('a deleted account', () => {
  it('takes its passkeys and open challenges with it', async () => {
    const leaving = await server.user('Leaving Owner');
    await storedPasskey(leaving.userId);
    const leavingSession = await signInDev(server, { userId: leaving.userId });
    expect((await leavingSession.api.POST('/api/passkeys/registration-options')).response.status).toBe(200);
    const deleted = await leavingSession.api.POST('/api/profile/me/delete', { body: { confirm: 'delete my account' } });
    expect(deleted.response.status).toBe(200);
    expect(await server.db.select().from(passkeys).where(eq(passkeys.userId, leaving.userId))).toEqual([]);
    expect(await server.db.select().from(webauthnChallenges).where(eq(webauthnChallenges.userId, leaving.userId))).toEqual([]);
  });
});

describe('approving with a passkey', () => {
  it('an owner without one approves signed in as before; the approval challenge needs one (409)', async () => {
    const client = await server.user('No Passkey Client');
    const worker = await server.user('Worker');
    const clientSession = await signInDev(server, { userId: client.userId });
    const { contract } = await pendingContract(client, worker);
    expectError(
      await clientSession.api.POST('/api/contracts/{id}/approval-challenge', { params: { path: { id: contract.id } } }),
      409,
      'INVALID_STATE',
      /no passkey/,
    );
    const approved = await clientSession.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
    expect(approved.response.status).toBe(200);
    expect((await approvalRows(contract.id)).map((a) => a.method)).toEqual(['session']);
  });

  it('once an owner has one: no passkey is 403 PASSKEY_REQUIRED, a bad one 400, a key may send none; nothing changes', async () => {
    const client = await server.user('Passkey Client');
    const worker = await server.user('Worker');
    const clientSession = await signInDev(server, { userId: client.userId });
    const credentialId = await storedPasskey(client.userId);
    const { contract } = await pendingContract(client, worker);
    const before = await contractRow(contract.id);
    const approve = (body: Record<string, unknown> = {}, by: { api: User['api'] } = clientSession) =>
      by.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } }, body: body as never });

    expectError(await approve(), 403, 'PASSKEY_REQUIRED', /approving needs it/);

    const challenge = await clientSession.api.POST('/api/contracts/{id}/approval-challenge', { params: { path: { id: contract.id } } });
    expect(challenge.response.status).toBe(200);
    expect(challenge.data).toMatchObject({ contract_id: contract.id, revision_count: 0, terms_hash: contract.terms_hash });
    const options = challenge.data!.options as { challenge: string; rpId: string; allowCredentials: { id: string }[] };
    expect(options.rpId).toBe('127.0.0.1');
    expect(options.allowCredentials.map((c) => c.id)).toEqual([credentialId]);

    expectError(
      await approve({ passkey: fakeAssertion(credentialId, options.challenge) }),
      400,
      'VALIDATION_FAILED',
      /could not be verified/,
    );
    expectError(
      await approve({ passkey: fakeAssertion(credentialId, options.challenge) }),
      400,
      'VALIDATION_FAILED',
      /open approval challenge/,
    );
    expectError(await approve({ passkey: fakeAssertion(credentialId, 'abc') }, client), 400, 'VALIDATION_FAILED', /not with an API key/);

    expect(await contractRow(contract.id)).toEqual(before);
    expect(await approvalRows(contract.id)).toEqual([]);
    // An API key under the default policy still approves: passkeys guard the browser session.
    const byKey = await approve({}, client);
    expect(byKey.response.status).toBe(200);
    expect((await approvalRows(contract.id)).map((a) => a.method)).toEqual(['api_key']);
  });
});
