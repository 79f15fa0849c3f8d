// The caller's resume (upload, delete) and the download at resume_url. The rules live in
// src/services/resumes.ts; the file arrives read by src/http/uploads.ts.
import type { Handlers } from '../src/http/handler.ts';
import { principalOf } from '../src/auth/authenticate.ts';
import { sendInertFile, uploadOf } from '../src/http/uploads.ts';
import * as resumes from '../src/services/resumes.ts';

export function resumeHandlers(): Handlers<'uploadResume' | 'deleteResume' | 'getResume'> {
  return {
    uploadResume: (request, _reply, { ctx }) => resumes.uploadResume(ctx, principalOf(request).userId, uploadOf(request, 'resume').bytes),

    deleteResume: (request, _reply, { ctx }) => resumes.deleteResume(ctx, principalOf(request).userId),

    async getResume(request, reply, { ctx }) {
      const file = await resumes.readResume(ctx, request.principal?.userId ?? null, request.params.userId);
      return sendInertFile(reply, file);
    },
  };
}
