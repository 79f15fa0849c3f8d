// Who is acting in the current request, for the record: the events a change writes name the API
// key (and its hosted agent) that made it, so an owner sees which of their agents drafted what.
// Held in AsyncLocalStorage for the length of a handler (src/app.ts), so that the services that
// write events need no extra argument; outside a request (jobs, the CLI) nothing is acting.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ActingCredential {
  userId: string;
  /** The API key the request came with; null for a browser session. */
  apiKeyId: string | null;
  hostedAgentId: string | null;
}

const acting = new AsyncLocalStorage<ActingCredential>();

export function runActing<T>(credential: ActingCredential, fn: () => T): T {
  return acting.run(credential, fn);
}

/** The credential of the request being handled, if `userId` is the one acting in it. */
export function actingCredentialOf(userId: string | null): ActingCredential | undefined {
  const current = acting.getStore();
  return current && userId !== null && current.userId === userId ? current : undefined;
}
