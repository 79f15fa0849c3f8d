// Our signatures checked by the standard's own reference library, as a receiver would check them.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signedHeaders } from '../../src/webhooks/signing.ts';

const body = JSON.stringify({ id: 'evt_01', type: 'contract.approved', data: { note: 'héllo ✓' } });

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newWebhookSecret()));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    }
  });
});

describe('signedHeaders', () => {
  const oldSecret = newWebhookSecret();
  const newSecret = newWebhookSecret();

  it('is what the reference implementation signs, byte for byte', () => {
    const timestamp = new Date('2026-11-22T10:00:00.900Z');
    const headers = signedHeaders({ id: 'msg_1', timestamp, body, secrets: [oldSecret] });
    expect(headers['webhook-id']).toBe('msg_1');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(timestamp.getTime() / 1000)));
    expect(headers['webhook-signature']).toBe(new Webhook(oldSecret).sign('msg_1', timestamp, body));
  });

  it('signed with both secrets during a rotation, verifies with either', () => {
    const headers = signedHeaders({ id: 'msg_2', timestamp: new Date(), body, secrets: [oldSecret, newSecret] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(oldSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('is refused with a wrong secret, a tampered body, another id, a stale or a future timestamp', () => {
    const headers = signedHeaders({ id: 'msg_3', timestamp: new Date(), body, secrets: [oldSecret, newSecret] });
    const refused = (secret: string, payload: string, h: Record<string, string>) =>
      expect(() => new Webhook(secret).verify(payload, h)).toThrow(WebhookVerificationError);

    refused(newWebhookSecret(), body, { ...headers });
    refused(oldSecret, body.replace('approved', 'rejected'), { ...headers });
    refused(oldSecret, body, { ...headers, 'webhook-id': 'msg_4' });
    const tenMinutes = 10 * 60 * 1000;
    for (const when of [Date.now() - tenMinutes, Date.now() + tenMinutes]) {
      const signed = signedHeaders({ id: 'msg_3', timestamp: new Date(when), body, secrets: [oldSecret] });
      refused(oldSecret, body, { ...signed });
    }
  });

  it('refuses to sign with a malformed secret, no secret, a bad id or date', () => {
    const ok = { id: 'msg_5', timestamp: new Date(), body, secrets: [oldSecret] };
    expect(() => signedHeaders({ ...ok, secrets: [] })).toThrow(/at least one secret/);
    expect(() => signedHeaders({ ...ok, secrets: [oldSecret.slice(6)] })).toThrow(/whsec_/);
    expect(() => signedHeaders({ ...ok, secrets: ['whsec_c2hvcnQ='] })).toThrow(/at least 24 bytes/);
    expect(() => signedHeaders({ ...ok, secrets: [`whsec_${'*'.repeat(44)}`] })).toThrow(/whsec_/);
    expect(() => signedHeaders({ ...ok, id: 'msg 5' })).toThrow(/id/);
    expect(() => signedHeaders({ ...ok, timestamp: new Date('nope') })).toThrow(/date/);
  });
});
