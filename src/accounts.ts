// Creating a user with a first API key: the operator CLI and the tests share this.
import type { Executor } from '../db/client.ts';
import { createUser } from '../db/repositories/users.ts';
import { createApiKey } from '../db/repositories/api-keys.ts';

export async function createUserWithKey(db: Executor, displayName: string, keyName = 'cli') {
  const user = await createUser(db, { displayName });
  const key = await createApiKey(db, user.id, { name: keyName });
  return { userId: user.id, apiKeyId: key.row.id, apiKey: key.secret };
}
