// The outbox relay: every event written is handed to the subscribers once, in a transaction of the
// relay's own, and marked dispatched with it; a running server dispatches on its own, soon after
// the commit; a failing subscriber dispatches nothing (the events wait for the next try).
import { describe, expect, it, vi } from 'vitest';
import { inArray, isNull } from 'drizzle-orm';
import { testFileServer } from '../helpers/server.ts';
import { events } from '../../db/schema.ts';
import { dispatchPending, type EventSubscriber } from '../../src/services/event-relay.ts';

const server = testFileServer();

const undispatched = () => server.db.select({ id: events.id }).from(events).where(isNull(events.dispatchedAt));

describe('the event relay', () => {
  it("marks a running server's events dispatched soon after they commit", async () => {
    const user = await server.user('Relay');
    const gig = await user.api.POST('/api/gigs', { body: { title: 'Relayed' } });
    await vi.waitFor(
      async () => {
        const [row] = await server.db
          .select()
          .from(events)
          .where(inArray(events.resourceId, [gig.data!.id]));
        expect(row?.dispatchedAt).toBeInstanceOf(Date);
      },
      { timeout: 60_000, interval: 50 },
    );
    expect(await undispatched()).toEqual([]);
  });

  it('hands each pending event to every subscriber once, oldest first, and a failure dispatches nothing', async () => {
    await server.runtime.relay.stop(); // nothing else dispatches now
    const user = await server.user('Quiet');
    for (const title of ['One', 'Two', 'Three']) await user.api.POST('/api/gigs', { body: { title } });
    const pending = (await undispatched()).length;
    expect(pending).toBe(4); // api_key.created and three gig.created

    const seen: string[][] = [];
    const recorder: EventSubscriber = async (_tx, batch) => {
      seen.push(batch.map((e) => e.type));
    };
    const failing: EventSubscriber = async () => {
      throw new Error('subscriber down');
    };
    await expect(dispatchPending({ db: server.db }, [recorder, failing])).rejects.toThrow('subscriber down');
    expect((await undispatched()).length).toBe(pending);

    seen.length = 0;
    expect(await dispatchPending({ db: server.db }, [recorder], 2)).toBe(pending);
    expect(seen).toEqual([
      ['api_key.created', 'gig.created'],
      ['gig.created', 'gig.created'],
    ]);
    expect(await undispatched()).toEqual([]);
    expect(await dispatchPending({ db: server.db }, [recorder])).toBe(0);
    expect(seen).toHaveLength(2);
  });
});
