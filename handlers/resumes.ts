// The caller's resume (upload, delete) and the download at resume_url. The rules live in
// src/services/resumes.ts; the file arrives read by src/http/uploads.ts.
import type { Handlers } from '../src/http/handler.ts';
import { actorOf } from '../src/auth/authenticate.ts';
import { sendInertFile, uploadOf } from '../src/http/uploads.ts';
import * as resumes from '../src/services/resumes.ts';

export function resumeHandlers(): Handlers<'uploadResume' | 'deleteResume' | 'getResume'> {
  return {
    uploadResume: (request, _reply, { ctx }) => resumes.uploadResume(ctx, actorOf(request), uploadOf(request, 'resume').bytes),

    deleteResume: (request, _reply, { ctx }) => resumes.deleteResume(ctx, actorOf(request)),

    async getResume(request, reply, { ctx }) {
      const file = await resumes.readResume(ctx, request.principal ? actorOf(request) : null, request.params.userId);
      return sendInertFile(reply, file);
    },
  };
}
