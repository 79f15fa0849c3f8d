// A dispute's evidence, oldest first: statements as text and files (PDF or image) to download;
// while the dispute is live, either party adds a statement or uploads a file.
import { useMutation } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { api, unwrap, type Me } from '../api.ts';
import { Empty, ErrorMessage, Time } from '../components/States.tsx';
import { fileSize, type Dispute, type Evidence, useDisputeChanged } from '../disputes.ts';
import { when } from '../format.ts';

const FILE_KIND: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG image',
  'image/jpeg': 'JPEG image',
  'image/webp': 'WebP image',
};

export function DisputeEvidence({ dispute: d, me }: { dispute: Dispute; me: Me }) {
  const live = d.status === 'open' || d.status === 'responded';
  const evidence = d.evidence ?? [];
  return (
    <section aria-labelledby="evidence-heading">
      <h2 id="evidence-heading">Evidence</h2>
      {evidence.length === 0 && <Empty>No evidence yet.</Empty>}
      {evidence.length > 0 && (
        <ol className="evidence" data-testid="evidence">
          {evidence.map((e) => (
            <EvidenceItem key={e.id} evidence={e} mine={e.author_user_id === me.user_id} />
          ))}
        </ol>
      )}
      {live && (
        <div className="evidence-forms">
          <AddStatement dispute={d} />
          <UploadFile dispute={d} />
        </div>
      )}
    </section>
  );
}

function EvidenceItem({ evidence: e, mine }: { evidence: Evidence; mine: boolean }) {
  return (
    <li>
      <p className="muted small">
        {mine ? 'You' : `The ${e.author_role}`}, <Time iso={e.created_at} format={when} />
      </p>
      {e.kind === 'text' && <p className="notes">{e.text}</p>}
      {e.file && (
        <p>
          <a href={e.file.url} download>
            Download the {FILE_KIND[e.file.content_type] ?? 'file'}
          </a>{' '}
          <span className="muted small">({fileSize(e.file.size_bytes)})</span>
        </p>
      )}
    </li>
  );
}

function AddStatement({ dispute: d }: { dispute: Dispute }) {
  const changed = useDisputeChanged();
  const [text, setText] = useState('');
  const id = useId();
  const add = useMutation({
    mutationFn: () => unwrap(api.POST('/api/disputes/{id}/evidence', { params: { path: { id: d.id } }, body: { text: text.trim() } })),
    onSuccess: () => {
      setText('');
      changed();
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        add.mutate();
      }}
    >
      <label htmlFor={id}>Add a statement</label>
      <textarea id={id} required maxLength={5000} rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      <button type="submit" className="secondary" disabled={add.isPending || !text.trim()}>
        {add.isPending ? 'Adding…' : 'Add statement'}
      </button>
      {add.isError && <ErrorMessage error={add.error} />}
    </form>
  );
}

function UploadFile({ dispute: d }: { dispute: Dispute }) {
  const changed = useDisputeChanged();
  const input = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File | null>(null);
  const id = useId();
  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file);
      // The multipart body goes as it is: the browser sets its boundary.
      return unwrap(
        api.POST('/api/disputes/{id}/evidence/files', {
          params: { path: { id: d.id } },
          body: form as never,
          bodySerializer: (body: unknown) => body as never,
        }),
      );
    },
    onSuccess: () => {
      setChosen(null);
      if (input.current) input.current.value = '';
      changed();
    },
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen) upload.mutate(chosen);
      }}
    >
      <label htmlFor={id}>Add a file (PDF, PNG, JPEG or WebP, at most 5 MB)</label>
      <input
        id={id}
        ref={input}
        type="file"
        accept="application/pdf,image/png,image/jpeg,image/webp"
        onChange={(e) => setChosen(e.target.files?.[0] ?? null)}
      />
      <button type="submit" className="secondary" disabled={upload.isPending || !chosen}>
        {upload.isPending ? 'Uploading…' : 'Upload file'}
      </button>
      {upload.isError && <ErrorMessage error={upload.error} />}
    </form>
  );
}
