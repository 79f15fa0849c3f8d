// oidc-provider's storage adapter on our database (db/repositories/oauth.ts): one instance per
// model the provider keeps. A consumed record comes back with `consumed` set, as the provider
// expects (it refuses a code used twice and, for a refresh token used twice, revokes the grant);
// consuming is conditional, so of two redemptions at once (on two instances, say) one fails.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../db/client.ts';
import {
  consumeOAuthRecord,
  deleteOAuthRecord,
  deleteOAuthRecordsOfGrant,
  findOAuthRecord,
  upsertOAuthRecord,
} from '../../db/repositories/oauth.ts';

/** What the adapter throws when a record was consumed already: the provider's own error (invalid_grant). */
type AlreadyUsed = new (description: string) => Error;

export function postgresAdapter(db: Db, AlreadyUsed: AlreadyUsed) {
  return class PostgresAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      await upsertOAuthRecord(db, {
        model: this.model,
        id,
        payload: payload as Record<string, unknown>,
        grantId: payload.grantId ?? null,
        uid: payload.uid ?? null,
        userCode: payload.userCode ?? null,
        expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      });
    }

    private async findBy(by: 'id' | 'uid' | 'userCode', value: string): Promise<AdapterPayload | undefined> {
      const row = await findOAuthRecord(db, this.model, by, value);
      if (!row) return undefined;
      const payload = row.payload as AdapterPayload;
      return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
    }

    find(id: string) {
      return this.findBy('id', id);
    }

    findByUid(uid: string) {
      return this.findBy('uid', uid);
    }

    findByUserCode(userCode: string) {
      return this.findBy('userCode', userCode);
    }

    async consume(id: string): Promise<void> {
      if (!(await consumeOAuthRecord(db, this.model, id))) throw new AlreadyUsed(`${this.model} already used`);
    }

    async destroy(id: string): Promise<void> {
      await deleteOAuthRecord(db, this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deleteOAuthRecordsOfGrant(db, this.model, grantId);
    }
  };
}
