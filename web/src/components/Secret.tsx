// A secret shown once (a new API key, a webhook endpoint's signing secret): it takes the focus, says
// it will not be shown again, and offers a copy button.
import { useEffect, useRef } from 'react';

export function Secret({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <div className="secret" ref={box} tabIndex={-1} role="status" aria-live="polite">
      <p>
        <strong>{label}:</strong> copy it now; it will not be shown again.
      </p>
      <code data-testid="secret">{value}</code>
      <div className="row">
        <button type="button" className="secondary" onClick={() => void navigator.clipboard?.writeText(value)}>
          Copy
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}
