// The profile page's share of the API: its types (by path, as in api.ts), its query keys, and
// the API's validation issues sorted by the field they name.
import type { paths } from '../../src/generated/api.d.ts';
import { ApiError, type ApiIssue, type Ok } from './api.ts';

export type PublicProfile = Ok<'/api/profile/{userId}', 'get'>;
export type Voucher = PublicProfile['vouched_by'][number];
export type Review = Ok<'/api/profile/{userId}/reviews', 'get'>['data'][number];
export type ProfileUpdate = paths['/api/profile/me']['patch']['requestBody']['content']['application/json'];
export type AccountDeletion = Ok<'/api/profile/me/delete', 'post'>;

// Under 'profile' with keys.profile (a display name), so that a rename refreshes every name shown.
export const profileKeys = {
  all: ['profile'] as const,
  public: (userId: string) => ['profile', 'public', userId] as const,
  reviews: (userId: string) => ['profile', 'reviews', userId] as const,
};

/** The upload limit the API states (openapi.yaml, uploadResume): 5 MB. */
export const RESUME_MAX_BYTES = 5_242_880;
export const RESUME_TYPES = 'application/pdf,image/png,image/jpeg,image/webp';

/** What the API says about one field (`body.skills` also collects `body.skills/0` and the like). */
export function issuesFor(error: unknown, field: string): ApiIssue[] {
  if (!(error instanceof ApiError)) return [];
  const path = `body.${field}`;
  return error.issues.filter((i) => i.path === path || i.path.startsWith(`${path}/`) || i.path.startsWith(`${path}.`));
}

/** "4.67 of 5", or "no rating yet". */
export function rating(average: number | null): string {
  return average === null ? 'no rating yet' : `${average.toLocaleString(undefined, { maximumFractionDigits: 2 })} of 5`;
}

/** "3 vouches", "1 vouch". */
export const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
