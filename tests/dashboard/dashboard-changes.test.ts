// The dashboard's "what changed" between two sets of terms (web/src/changes.ts), the sentences the
// contract page makes of it (web/src/terms.ts), and who did what in the Activity lists
// (web/src/activity.ts): pure functions, no browser.
import { describe, expect, it } from 'vitest';
import { changesBetween, hasChanges, type Terms } from '../../web/src/changes.ts';
import { actorText, eventText, type Event } from '../../web/src/activity.ts';
import { changeSentences } from '../../web/src/terms.ts';

const base: Terms = {
  rate_cents: 8000,
  hours_per_week: 10,
  start_date: '2026-12-01',
  payout_delay_days: 3,
  currency: 'USD',
  milestones: [
    { title: 'Parser', amount_cents: 120_000, due_date: '2026-12-15' },
    { title: 'Docs', amount_cents: 30_000, due_date: null },
  ],
};

describe('changesBetween', () => {
  it('finds nothing between equal terms, and ignores extra properties (a contract has more)', () => {
    const contractLike = {
      ...base,
      id: 'c1',
      status: 'pending_owner_approval',
      milestones: base.milestones.map((m) => ({ ...m, id: 'x' })),
    };
    const changes = changesBetween(base, contractLike);
    expect(changes).toEqual({ fields: [], milestones: [] });
    expect(hasChanges(changes)).toBe(false);
  });

  it('compares the terms field by field, null included', () => {
    const changes = changesBetween(base, { ...base, rate_cents: 9000, hours_per_week: null, currency: 'EUR' });
    expect(changes.fields).toEqual([
      { field: 'rate_cents', before: 8000, after: 9000 },
      { field: 'hours_per_week', before: 10, after: null },
      { field: 'currency', before: 'USD', after: 'EUR' },
    ]);
    expect(changes.milestones).toEqual([]);
  });

  it('pairs milestones by title, so one inserted at the top is "added" and the rest unchanged', () => {
    const added = { title: 'Design', amount_cents: 5_000, due_date: null };
    const changes = changesBetween(base, { ...base, milestones: [added, ...base.milestones] });
    expect(changes.milestones).toEqual([{ kind: 'added', position: 1, after: added }]);
  });

  it('reports a removed milestone at its old position, and a changed one with the fields that differ', () => {
    const changes = changesBetween(base, { ...base, milestones: [{ title: 'Parser', amount_cents: 130_000, due_date: '2026-12-20' }] });
    expect(changes.milestones).toEqual([
      {
        kind: 'changed',
        position: 1,
        before: base.milestones[0],
        after: { title: 'Parser', amount_cents: 130_000, due_date: '2026-12-20' },
        fields: ['amount_cents', 'due_date'],
      },
      { kind: 'removed', position: 2, before: base.milestones[1] },
    ]);
  });

  it('pairs a milestone left over with one of the same amount or due date: a renamed one is "changed"', () => {
    const renamed = { title: 'Documentation', amount_cents: 30_000, due_date: null };
    const changes = changesBetween(base, { ...base, milestones: [base.milestones[0]!, renamed] });
    expect(changes.milestones).toEqual([{ kind: 'changed', position: 2, before: base.milestones[1], after: renamed, fields: ['title'] }]);
  });

  it('counts a milestone with nothing in common as another one: removed, and added', () => {
    const other = { title: 'Release', amount_cents: 20_000, due_date: '2027-01-04' };
    const changes = changesBetween(base, { ...base, milestones: [base.milestones[0]!, other] });
    expect(changes.milestones).toEqual([
      { kind: 'added', position: 2, after: other },
      { kind: 'removed', position: 2, before: base.milestones[1] },
    ]);
  });

  it('does not count a milestone that only moved', () => {
    const changes = changesBetween(base, { ...base, milestones: [base.milestones[1]!, base.milestones[0]!] });
    expect(changes.milestones).toEqual([]);
  });

  it('handles duplicate titles and empty lists', () => {
    const twice = { title: 'Part', amount_cents: 100, due_date: null };
    expect(changesBetween({ ...base, milestones: [twice] }, { ...base, milestones: [twice, twice] }).milestones).toEqual([
      { kind: 'added', position: 2, after: twice },
    ]);
    expect(changesBetween({ ...base, milestones: [] }, base).milestones.map((c) => c.kind)).toEqual(['added', 'added']);
    expect(changesBetween(base, { ...base, milestones: [] }).milestones.map((c) => c.kind)).toEqual(['removed', 'removed']);
  });
});

describe('changeSentences', () => {
  it('says what changed in words, each with what it was ("changed from")', () => {
    const after: Terms = {
      ...base,
      rate_cents: 9000,
      start_date: null,
      payout_delay_days: 1,
      milestones: [
        { title: 'Parser', amount_cents: 130_000, due_date: '2026-12-15' },
        { title: 'Release', amount_cents: 30_000, due_date: '2027-01-04' },
      ],
    };
    expect(changeSentences(changesBetween(base, after), base, after)).toEqual([
      'Rate: $90.00 per hour, changed from $80.00 per hour.',
      'Start date: none stated, changed from Dec 1, 2026.',
      'Payout delay: 1 day after each release, changed from 3 days after each release.',
      'Milestone 1 “Parser”: amount $1,300.00, changed from $1,200.00.',
      'Milestone 2 “Release”: title “Release”, changed from “Docs”; due date Jan 4, 2027, changed from none.',
    ]);
  });
});

describe('actorText', () => {
  const me = 'user-me';
  const myKeys = [{ id: 'key-1', name: 'research' }];
  it('names the viewer in the browser, their key and its agent, the other party, and the platform', () => {
    expect(actorText({ user_id: me, api_key_id: null, hosted_agent_id: null }, me, myKeys)).toBe('you, in the browser');
    expect(actorText({ user_id: me, api_key_id: 'key-1', hosted_agent_id: 'agent-7' }, me, myKeys)).toBe(
      "your key 'research' (agent agent-7)",
    );
    expect(actorText({ user_id: me, api_key_id: 'key-1', hosted_agent_id: null }, me, myKeys)).toBe("your key 'research'");
    expect(actorText({ user_id: me, api_key_id: 'gone', hosted_agent_id: null }, me, myKeys)).toBe('one of your API keys');
    expect(actorText({ user_id: 'other', api_key_id: 'k', hosted_agent_id: 'agent-9' }, me, myKeys)).toBe(
      "the other party's agent agent-9",
    );
    expect(actorText({ user_id: 'other', api_key_id: 'k', hosted_agent_id: null }, me, myKeys)).toBe('the other party, by an API key');
    expect(actorText({ user_id: 'other', api_key_id: null, hosted_agent_id: null }, me, myKeys)).toBe('the other party, in the browser');
    expect(actorText(null, me, myKeys)).toBe('gigmarket');
  });
});

describe('eventText', () => {
  const event = (type: string, data: object = {}) =>
    ({ id: 'e', type, created_at: '2026-11-23T00:00:00Z', actor: null, data }) as unknown as Event;
  it('says what happened in words; a round, its number and whose terms', () => {
    expect(
      eventText(
        event('negotiation.round_created', {
          rounds: [
            { number: 1, proposed_by: 'client' },
            { number: 2, proposed_by: 'worker' },
          ],
        }),
      ),
    ).toBe('Round 2 (the worker’s terms) proposed');
    expect(eventText(event('contract.revised'))).toBe('Contract sent back to negotiation');
    expect(eventText(event('dispute.opened'))).toBe('Dispute opened');
    // A type without words of its own: its name, spelled out.
    expect(eventText(event('review.published'))).toBe('review published');
  });
});
