// Loading, empty and error states, the same on every page.
import type { ReactNode } from 'react';
import { ApiError } from '../api.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** The API's `error.message`, as it is: every refusal says why in words meant for people. */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError && error.status ? ` (${error.status} ${error.code})` : '';
  return (
    <div className="error" role="alert">
      <p>
        <strong>Error{code}:</strong> {message}
      </p>
      {onRetry && (
        <button type="button" className="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Time({ iso, format }: { iso: string; format: (iso: string) => string }) {
  return <time dateTime={iso}>{format(iso)}</time>;
}
