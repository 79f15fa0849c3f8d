// An OAuth client's authorization request, as the Authorize page reads and answers it (the
// dashboard's own routes beside the authorization server, not the API for agents: see
// src/oauth/consent.ts). Errors come as the API's envelope, unwrapped the same way.
import { unwrap } from './api.ts';

export interface AuthorizationRequest {
  uid: string;
  client: { id: string; name: string | null; uri: string | null };
  /** Where the browser goes back to: the client's origin, or its app's own scheme. */
  back_to: string;
  /** What the client asks for, `read` first when asked; each with what it lets the client do. */
  scopes: { name: 'read' | 'draft' | 'approve' | 'money'; description: string }[];
}

export interface AuthorizationAnswer {
  decision: 'allow' | 'deny';
  scopes: AuthorizationRequest['scopes'][number]['name'][];
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  return unwrap<T>(
    fetch(path, { credentials: 'same-origin', ...init }).then(async (response) => {
      const body: unknown = await response.json().catch(() => undefined);
      return response.ok ? { data: body as T, response } : { error: body, response };
    }),
  );
}

const path = (uid: string) => `/oauth/consent/${encodeURIComponent(uid)}`;

export const readAuthorization = (uid: string) => call<AuthorizationRequest>(path(uid));

/** The owner's answer; the server says where the browser goes next (back to the client). */
export const answerAuthorization = (uid: string, answer: AuthorizationAnswer) =>
  call<{ redirect_to: string }>(path(uid), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(answer),
  });
