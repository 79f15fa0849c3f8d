// How a service makes a call outside the process (the payment provider, the model, a webhook
// receiver, DNS): through an `Outside` it is handed, never while a transaction is open. For a
// request, src/http/operation.ts hands one that records each result on the request's
// Idempotency-Key, so a retry after a crash resumes instead of calling again; jobs, the CLI and
// tests call now.
export type Outside = <T>(phase: string, call: () => Promise<T>) => Promise<T>;

/** Calls at once, recording nothing. */
export const callNow: Outside = (_phase, call) => call();
