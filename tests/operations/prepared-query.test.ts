// Prepared queries (db/prepared.ts) are built once per handle they are given: given a transaction,
// they read what it wrote and has not yet committed; given the database, only what is committed (on
// a server Postgres: PGlite runs one transaction at a time); a rollback leaves nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { findVisibleGig, insertGig } from '../../db/repositories/gigs.ts';
import { findLiveSession, insertSession, revokeSessionByTokenHash } from '../../db/repositories/sessions.ts';
import { getNegotiationForParty, insertNegotiation } from '../../db/repositories/negotiations.ts';
import { newId } from '../../src/ids.ts';
import { testFileServer } from '../helpers/server.ts';

// PGlite has one connection: a read outside an open transaction waits for it to end.
const concurrentReads = Boolean(process.env.DATABASE_URL);
const server = testFileServer();
let clientId: string;
beforeAll(async () => {
  clientId = (await server.user('Prepared Client')).userId;
});

const newGig = (db: Parameters<typeof insertGig>[0], status: 'open' | 'draft' = 'open') =>
  insertGig(db, clientId, { id: newId(), title: 'Prepared gig', status });

describe('a prepared read given a transaction or the database', () => {
  it('sees the open transaction’s own writes inside it, only committed ones outside, nothing after a rollback', async () => {
    const db = server.db;
    const committed = await newGig(db);
    // Outside any transaction: built on the database itself.
    expect((await findVisibleGig(db, clientId, committed.id))?.id).toBe(committed.id);

    const pending = await db.transaction(async (tx) => {
      const gig = await newGig(tx);
      expect((await findVisibleGig(tx, clientId, gig.id))?.id).toBe(gig.id);
      expect((await findVisibleGig(tx, clientId, committed.id))?.id).toBe(committed.id);
      if (concurrentReads) expect(await findVisibleGig(db, clientId, gig.id)).toBeUndefined();
      return gig;
    });
    expect((await findVisibleGig(db, clientId, pending.id))?.id).toBe(pending.id);

    let goneId = '';
    await db
      .transaction(async (tx) => {
        const gone = await newGig(tx);
        goneId = gone.id;
        expect((await findVisibleGig(tx, clientId, gone.id))?.id).toBe(gone.id);
        tx.rollback();
      })
      .catch(() => {});
    expect(goneId).not.toBe('');
    expect(await findVisibleGig(db, clientId, goneId)).toBeUndefined();
  });

  it('fills its placeholders on every call: another viewer does not see a draft, its client does', async () => {
    const draft = await newGig(server.db, 'draft');
    const stranger = (await server.user('Prepared Stranger')).userId;
    expect(await findVisibleGig(server.db, stranger, draft.id)).toBeUndefined();
    expect((await findVisibleGig(server.db, clientId, draft.id))?.status).toBe('draft');
    expect(await findVisibleGig(server.db, clientId, newId())).toBeUndefined();
  });
});

describe('the prepared session read', () => {
  it('finds a live session by its hash; not an expired one (against the database clock), not a revoked one', async () => {
    const session = (tokenHash: string, expiresAt: Date) =>
      insertSession(server.db, { id: newId(), tokenHash, userId: clientId, expiresAt });
    const live = await session(`live-${newId()}`, new Date(Date.now() + 60_000));
    const expired = await session(`expired-${newId()}`, new Date(Date.now() - 1_000));
    const revoked = await session(`revoked-${newId()}`, new Date(Date.now() + 60_000));
    await revokeSessionByTokenHash(server.db, revoked.tokenHash);
    expect((await findLiveSession(server.db, live.tokenHash))?.id).toBe(live.id);
    expect(await findLiveSession(server.db, expired.tokenHash)).toBeUndefined();
    expect(await findLiveSession(server.db, revoked.tokenHash)).toBeUndefined();
    expect(await findLiveSession(server.db, 'no such hash')).toBeUndefined();
  });
});

describe('a prepared party-scoped read', () => {
  it('shows the negotiation to either party and to no one else', async () => {
    const gig = await newGig(server.db);
    const workerId = (await server.user('Prepared Worker')).userId;
    const stranger = (await server.user('Prepared Onlooker')).userId;
    const negotiation = await insertNegotiation(server.db, { id: newId(), gigId: gig.id, clientUserId: clientId, workerUserId: workerId });
    expect((await getNegotiationForParty(server.db, clientId, negotiation.id))?.id).toBe(negotiation.id);
    expect((await getNegotiationForParty(server.db, workerId, negotiation.id))?.id).toBe(negotiation.id);
    expect(await getNegotiationForParty(server.db, stranger, negotiation.id)).toBeUndefined();
  });
});
