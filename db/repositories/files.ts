// Stored files (db/schema/files.ts): the Postgres side of src/storage/file-store.ts.
import { eq } from 'drizzle-orm';
import { storedFiles } from '../schema.ts';
import type { Executor } from '../client.ts';

export type StoredFileRow = typeof storedFiles.$inferSelect;
export type NewStoredFile = typeof storedFiles.$inferInsert;

export async function insertFile(db: Executor, file: NewStoredFile): Promise<void> {
  await db.insert(storedFiles).values(file);
}

export async function getFile(db: Executor, id: string): Promise<StoredFileRow | undefined> {
  const [row] = await db.select().from(storedFiles).where(eq(storedFiles.id, id)).limit(1);
  return row;
}

export async function deleteFile(db: Executor, id: string): Promise<void> {
  await db.delete(storedFiles).where(eq(storedFiles.id, id));
}
