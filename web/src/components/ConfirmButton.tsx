// A button for an action that cannot be undone: the first press asks, in the page (no dialog), and
// only "Yes" acts. The question is announced to screen readers and takes the focus.
import { useEffect, useRef, useState } from 'react';

interface Props {
  label: string;
  /** A fuller name for assistive technology when `label` alone is ambiguous (it should start with `label`). */
  ariaLabel?: string;
  question: string;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
}

export function ConfirmButton({ label, ariaLabel, question, confirmLabel, busy, onConfirm }: Props) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) yes.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" className="secondary" aria-label={ariaLabel} disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <fieldset className="confirm">
      <legend>{question}</legend>
      <button
        ref={yes}
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>{' '}
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        No
      </button>
    </fieldset>
  );
}
