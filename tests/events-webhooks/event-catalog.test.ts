// The event catalog is one table in code (src/domain/events.ts: every type and its audience) and
// the spec (`webhooks:`, each with `x-audience`, and the `Event` union switching on `type`); these
// keep the two the same, so generated SDKs get one Event type that covers every event written.
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec.ts';
import { EVENT_AUDIENCE, EVENT_TYPES, audienceOf } from '../../src/domain/events.ts';

type Operation = { 'x-audience'?: string; requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } };
const spec = loadSpec() as unknown as {
  webhooks: Record<string, { post: Operation }>;
  components: {
    schemas: Record<string, { oneOf?: { $ref: string }[]; discriminator?: { propertyName: string; mapping: Record<string, string> } }>;
  };
};

describe('the event catalog', () => {
  it('lists in the spec exactly the types of the code, each sent to the audience the table says', () => {
    expect(Object.keys(spec.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) expect(spec.webhooks[type]!.post['x-audience'], type).toBe(EVENT_AUDIENCE[type]);
  });

  it('is one Event union on `type`, each webhook carrying its own member of it', () => {
    const union = spec.components.schemas.Event!;
    expect(union.discriminator?.propertyName).toBe('type');
    expect(Object.keys(union.discriminator!.mapping).sort()).toEqual([...EVENT_TYPES].sort());
    expect(union.oneOf!.map((s) => s.$ref).sort()).toEqual(Object.values(union.discriminator!.mapping).sort());
    for (const type of EVENT_TYPES) {
      const body = spec.webhooks[type]!.post.requestBody?.content?.['application/json']?.schema;
      expect(body?.$ref, type).toBe(union.discriminator!.mapping[type]);
    }
  });

  it('names its audience by rule: the client, both parties, or the owner', () => {
    const subject = { clientUserId: 'c', workerUserId: 'w', ownerUserId: 'o' };
    expect(audienceOf('gig.created', subject)).toEqual(['c']);
    expect(audienceOf('contract.approved', subject)).toEqual(['c', 'w']);
    expect(audienceOf('api_key.created', subject)).toEqual(['o']);
    expect(audienceOf('gig.created', { clientUserId: null })).toEqual([]); // an external gig has nobody
    expect(() => audienceOf('contract.approved', {})).toThrow(/needs its parties/);
  });
});
