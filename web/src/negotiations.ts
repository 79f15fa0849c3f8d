// Negotiations, their events and the owner's keys: the queries of the negotiation pages and of
// the Activity lists (keys of their own here, so that a change refreshes every view of it).
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { allPages, api, unwrap, type Ok } from './api.ts';

export type Negotiation = Ok<'/api/negotiations/{id}', 'get'>;
export type Round = Negotiation['rounds'][number];
export type NegotiationStatus = Negotiation['status'];

export const negotiationKeys = {
  all: ['negotiations'] as const,
  list: (status: string) => ['negotiations', 'list', status] as const,
  one: (id: string) => ['negotiations', 'one', id] as const,
  events: ['events'] as const,
  eventsOf: (resourceId: string, asOf = 0) => ['events', resourceId, asOf] as const,
  revisedOf: (contractId: string, revision: number) => ['events', contractId, 'revised', revision] as const,
  keyNames: ['api-keys', 'all'] as const,
};

export function useNegotiation(id: string) {
  return useQuery({
    queryKey: negotiationKeys.one(id),
    queryFn: () => unwrap(api.GET('/api/negotiations/{id}', { params: { path: { id } } })),
    // As with a contract: the rounds on screen are what an agreement confirms.
    refetchOnWindowFocus: false,
  });
}

/**
 * The latest 50 events about a resource (a negotiation, a contract), newest first, read again
 * whenever the page's resource was (`asOf`, its fetch time: the page's Refresh refreshes both).
 */
export function useEventsOf(resourceId: string, asOf: number) {
  return useQuery({
    queryKey: negotiationKeys.eventsOf(resourceId, asOf),
    placeholderData: keepPreviousData,
    queryFn: async () => (await unwrap(api.GET('/api/events', { params: { query: { resource_id: resourceId, limit: 50 } } }))).data,
  });
}

/** Every API key of the owner, revoked ones too (an old event may name one). */
export function useAllKeys() {
  return useQuery({
    queryKey: negotiationKeys.keyNames,
    staleTime: 60_000,
    queryFn: () => allPages((cursor) => unwrap(api.GET('/api/keys', { params: { query: { limit: 100, cursor } } }))),
  });
}
