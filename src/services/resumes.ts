// A worker's resume: one file per user (a new upload replaces the old), kept in the file store
// (ctx.files), its key on the user's row. Readable by its owner and by a client while a relation
// the worker took part in lasts (isClientOfWorker); to anyone else, signed in or not, it does not
// exist (404).
import type { Actor } from '../actor.ts';
import type { Context } from '../context.ts';
import { getUser } from '../../db/repositories/users.ts';
import { getResumeKey, isClientOfWorker, lockResumeKey, setResumeKey } from '../../db/repositories/resumes.ts';
import { EXTENSION_OF, inspectUpload, type UploadContentType } from '../domain/uploads.ts';
import { notFound } from '../errors.ts';
import { gone, myProfile } from './profiles.ts';
import { profileEvent } from './events.ts';

type Ctx = Pick<Context, 'db' | 'config' | 'files'>;

/** Stores `bytes` as the caller's resume, replacing (and deleting) the one before. */
export async function uploadResume(ctx: Ctx, actor: Actor, bytes: Uint8Array) {
  const contentType = await inspectUpload(bytes);
  return ctx.db.transaction(async (tx) => {
    const previous = await lockResumeKey(tx, actor.userId);
    if (previous === undefined) throw gone();
    const stored = await ctx.files.put({ ownerUserId: actor.userId, purpose: 'resume', contentType, bytes }, tx);
    const user = await setResumeKey(tx, actor.userId, stored.key);
    if (previous) await ctx.files.delete(previous, tx);
    const profile = await myProfile(ctx, tx, user);
    await profileEvent(tx, 'profile.updated', actor.userId, profile, actor);
    return profile;
  });
}

/** Deletes the caller's resume; without one, nothing changes (and no event is written). */
export async function deleteResume(ctx: Ctx, actor: Actor) {
  return ctx.db.transaction(async (tx) => {
    const previous = await lockResumeKey(tx, actor.userId);
    if (previous === undefined) throw gone();
    if (previous === null) {
      const user = await getUser(tx, actor.userId);
      return myProfile(ctx, tx, user!);
    }
    const user = await setResumeKey(tx, actor.userId, null);
    await ctx.files.delete(previous, tx);
    const profile = await myProfile(ctx, tx, user);
    await profileEvent(tx, 'profile.updated', actor.userId, profile, actor);
    return profile;
  });
}

export interface ResumeDownload {
  bytes: Buffer;
  contentType: UploadContentType;
  filename: string;
}

/** The resume of `userId` if the actor (null: no credentials) may read it; else 404, whether or not it exists. */
export async function readResume(ctx: Ctx, actor: Actor | null, userId: string): Promise<ResumeDownload> {
  const allowed = actor !== null && (actor.userId === userId || (await isClientOfWorker(ctx.db, actor.userId, userId)));
  if (!allowed) throw notFound('resume');
  const key = await getResumeKey(ctx.db, userId);
  const file = key ? await ctx.files.get(key) : undefined;
  if (!file) throw notFound('resume');
  return { bytes: file.bytes, contentType: file.contentType, filename: `resume.${EXTENSION_OF[file.contentType]}` };
}
