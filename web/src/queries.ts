// Server state: one TanStack Query key per thing the pages read, so a change made on one page
// (an approval, a new key) refreshes every view that shows it.
import { QueryCache, QueryClient, MutationCache, useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Contract, type Me } from './api.ts';

export const keys = {
  me: ['me'] as const,
  signIn: ['sign-in-methods'] as const,
  contracts: ['contracts'] as const,
  contractList: (status: string) => ['contracts', 'list', status] as const,
  contractsIn: (status: string) => ['contracts', 'in', status] as const,
  contract: (id: string) => ['contracts', 'one', id] as const,
  gig: (id: string) => ['gig', id] as const,
  profile: (id: string) => ['profile', id] as const,
  unread: ['notifications', 'unread'] as const,
  apiKeys: ['api-keys'] as const,
  passkeys: ['passkeys'] as const,
};

export const reviewKeys = {
  all: ['reviews'] as const,
  ofContract: (id: string) => ['reviews', 'contract', id] as const,
};

export function createQueryClient(): QueryClient {
  // A 401 anywhere means the session ended (signed out elsewhere, expired): show the sign-in.
  const onError = (error: unknown) => {
    if (error instanceof ApiError && error.status === 401) void client.invalidateQueries({ queryKey: keys.me });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        // A refused request (4xx) will be refused again; only network failures and 5xx are retried.
        retry: (count, error) => count < 2 && (!(error instanceof ApiError) || error.status === 0 || error.status >= 500),
      },
      mutations: { retry: false },
    },
  });
  return client;
}

/** The signed-in owner, or null when signed out. */
export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async (): Promise<Me | null> => {
      try {
        return await unwrap(api.GET('/api/profile/me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
  });
}

export interface SignInMethods {
  github: boolean;
  dev: boolean;
}

/** Which browser sign-ins this server offers (a browser route, not part of the JSON API). */
export function useSignInMethods(enabled: boolean) {
  return useQuery({
    queryKey: keys.signIn,
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async (): Promise<SignInMethods> => {
      const res = await fetch('/auth/methods', { credentials: 'same-origin' });
      if (!res.ok) throw new ApiError(res.status, 'HTTP', `The server answered ${res.status}.`);
      return (await res.json()) as SignInMethods;
    },
  });
}

export function useContract(id: string) {
  return useQuery({
    queryKey: keys.contract(id),
    queryFn: () => unwrap(api.GET('/api/contracts/{id}', { params: { path: { id } } })),
    // The terms on screen are what an approval confirms: they change when the owner acts or asks,
    // not behind their back when the window regains focus.
    refetchOnWindowFocus: false,
  });
}

/** The owner's passkeys: once there is one, approving a contract needs it. */
export function usePasskeys() {
  return useQuery({ queryKey: keys.passkeys, queryFn: async () => (await unwrap(api.GET('/api/passkeys'))).data });
}

/** The gig's title for a contract row (gigs are read once and kept). */
export function useGigTitle(id: string) {
  return useQuery({
    queryKey: keys.gig(id),
    staleTime: 5 * 60_000,
    queryFn: async () => (await unwrap(api.GET('/api/gigs/{id}', { params: { path: { id } } }))).title,
  });
}

export function useDisplayName(userId: string) {
  return useQuery({
    queryKey: keys.profile(userId),
    staleTime: 5 * 60_000,
    queryFn: async () => (await unwrap(api.GET('/api/profile/{userId}', { params: { path: { userId } } }))).display_name,
  });
}

/** Which side of a contract the viewer is on. */
export function roleIn(contract: Pick<Contract, 'client_user_id' | 'worker_user_id'>, me: Pick<Me, 'user_id'>): 'client' | 'worker' {
  return contract.client_user_id === me.user_id ? 'client' : 'worker';
}
