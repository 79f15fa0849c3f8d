// oidc-provider's storage adapter on our database (db/repositories/oauth.ts): one instance per
// model the provider keeps. A consumed record comes back with `consumed` set, as the provider
// expects (it refuses a code used twice and, for a refresh token used twice, revokes the grant).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Db } from '../../db/client.ts';
import {
  consumeOAuthRecord,
  deleteOAuthGrant,
  deleteOAuthRecord,
  findOAuthRecord,
  upsertOAuthRecord,
} from '../../db/repositories/oauth.ts';

export function postgresAdapter(db: Db) {
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
      await consumeOAuthRecord(db, this.model, id);
    }

    async destroy(id: string): Promise<void> {
      await deleteOAuthRecord(db, this.model, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deleteOAuthGrant(db, grantId);
    }
  };
}
