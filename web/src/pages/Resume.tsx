// The owner's resume: the current one (a link that downloads it), upload or replace it (one
// multipart part, `resume`; the API reads the type from the content and refuses anything else
// with 415, a file over 5 MB with 413, in words shown here as they are), and delete it.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { ApiError, api, unwrap, type Me } from '../api.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ErrorMessage } from '../components/States.tsx';
import { profileKeys, RESUME_MAX_BYTES, RESUME_TYPES } from '../profile.ts';
import { keys } from '../queries.ts';

export function Resume({ me }: { me: Me }) {
  const queryClient = useQueryClient();
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const saved = (profile: Me) => {
    queryClient.setQueryData(keys.me, profile);
    void queryClient.invalidateQueries({ queryKey: profileKeys.all });
  };
  const upload = useMutation({
    mutationFn: (chosen: File) =>
      tooLargeIfCut(
        chosen,
        api.POST('/api/profile/me/resume', {
          // The spec types the binary part as a string: the part is the File itself, in a FormData
          // (the browser sets multipart/form-data with its boundary).
          body: { resume: chosen as unknown as string },
          bodySerializer: (body) => {
            const form = new FormData();
            form.append('resume', body.resume as unknown as Blob);
            return form;
          },
        }),
      ),
    onSuccess: (profile) => {
      setFile(null);
      if (input.current) input.current.value = '';
      saved(profile);
    },
  });
  const remove = useMutation({ mutationFn: () => unwrap(api.DELETE('/api/profile/me/resume')), onSuccess: saved });
  const has = me.resume_url !== null;
  return (
    <section aria-labelledby="resume-heading">
      <h2 id="resume-heading">Resume</h2>
      <p className="muted">
        Readable by you, and by a client while your application to their gig stands, while you negotiate with them (a round of yours), or
        while you have a contract with them; nobody else, and an invitation alone gives nothing. A PDF, or a PNG, JPEG or WebP image, of at
        most 5 MB.
      </p>
      {has ? (
        <div className="row resume-current" data-testid="resume">
          <span>Your current resume:</span>
          <a href={me.resume_url ?? undefined} download>
            Download your resume
          </a>
          <ConfirmButton
            label="Delete resume"
            question="Delete your resume? Clients can no longer read it."
            confirmLabel="Yes, delete it"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      ) : (
        <p className="empty">No resume uploaded yet.</p>
      )}
      {remove.isError && <ErrorMessage error={remove.error} />}
      <form
        className="resume-upload"
        onSubmit={(e) => {
          e.preventDefault();
          if (file) upload.mutate(file);
        }}
      >
        <label htmlFor={inputId}>{has ? 'Replace it with a file' : 'Upload a file'}</label>
        <input
          ref={input}
          id={inputId}
          type="file"
          accept={RESUME_TYPES}
          onChange={(e) => {
            setFile(e.target.files?.[0] ?? null);
            upload.reset();
          }}
        />
        <div className="row">
          <button type="submit" className="primary" disabled={!file || upload.isPending}>
            {upload.isPending ? 'Uploading…' : has ? 'Replace resume' : 'Upload resume'}
          </button>
        </div>
        {upload.isError && <ErrorMessage error={upload.error} />}
        {upload.isSuccess && (
          <p className="ok" role="status">
            Your resume is uploaded.
          </p>
        )}
      </form>
    </section>
  );
}

/**
 * The API answers a file over 5 MB with 413 as soon as it knows, and closes the connection without
 * reading the rest: a browser still sending may see the connection cut instead of the answer. Then
 * the file's size says why.
 */
async function tooLargeIfCut(file: File, call: Parameters<typeof unwrap<Me>>[0]): Promise<Me> {
  try {
    return await unwrap(call);
  } catch (err) {
    if (err instanceof ApiError && err.status === 0 && file.size > RESUME_MAX_BYTES)
      throw new Error(
        `The server closed the connection: the file is ${(file.size / 1_048_576).toFixed(1)} MB, over the 5 MB a resume may be.`,
      );
    throw err;
  }
}
