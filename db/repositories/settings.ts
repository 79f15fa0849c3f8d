import { eq } from 'drizzle-orm';
import { appSettings } from '../schema.ts';
import type { Executor } from '../client.ts';

/** The stored value, or `make()`'s, stored once: concurrent first starts agree on one value. */
export async function getOrCreateSetting(db: Executor, key: string, make: () => string): Promise<string> {
  await db.insert(appSettings).values({ key, value: make() }).onConflictDoNothing();
  const [row] = await db.select().from(appSettings).where(eq(appSettings.key, key));
  return row!.value;
}
