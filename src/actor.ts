// Who acts in an operation, handed to every service explicitly: the user, and the credential they
// act by. Events written by a change name the API key (and its hosted agent) that made it, so an
// owner sees which of their agents did what. A browser session, the operator CLI and tests act as
// the user alone.
export interface Actor {
  userId: string;
  /** The API key the request came with; null for a browser session, the CLI or a job. */
  apiKeyId: string | null;
  hostedAgentId: string | null;
}

/** The user acting in person (a browser session, the operator CLI): no key. */
export function userActor(userId: string): Actor {
  return { userId, apiKeyId: null, hostedAgentId: null };
}
