// How the operator CLI shows sources and sync results (one line each).
import type { SourceConfig } from './config.ts';
import type { SyncResult } from './sync.ts';

export function describeSource(s: SourceConfig, counts: { open: number; closed: number } | undefined): string {
  const where = s.kind === 'github_issues' ? `${s.url} q="${s.query}"` : s.url;
  const gigs = counts ? `${counts.open} open, ${counts.closed} closed` : 'no gigs yet';
  return `${s.name}  ${s.kind}  ${s.enabled ? 'enabled' : 'disabled'}  "${s.schedule}"  ${where}  (${gigs})`;
}

export function presentSource(s: SourceConfig, counts: { open: number; closed: number } | undefined) {
  return {
    name: s.name,
    kind: s.kind,
    url: s.url,
    schedule: s.schedule,
    enabled: s.enabled,
    default_currency: s.defaultCurrency,
    query: s.query ?? null,
    token_env: s.tokenEnv ?? null,
    open_gigs: counts?.open ?? 0,
    closed_gigs: counts?.closed ?? 0,
  };
}

export function describeResult(r: SyncResult): string {
  if (!r.ok) return `${r.source}: FAILED, nothing changed: ${r.error}`;
  const skipped = r.skipped ? ` (${r.skipped} skipped)` : '';
  const counts = `${r.inserted} new, ${r.updated} updated (${r.reopened} reopened), ${r.unchanged} unchanged, ${r.closed} closed`;
  return `${r.source}: ${r.fetched} ${r.fetched === 1 ? 'item' : 'items'}${skipped}; ${counts}`;
}

export function presentResult(r: SyncResult) {
  return {
    source: r.source,
    ok: r.ok,
    error: r.error ?? null,
    fetched: r.fetched,
    skipped: r.skipped,
    inserted: r.inserted,
    updated: r.updated,
    reopened: r.reopened,
    unchanged: r.unchanged,
    closed: r.closed,
  };
}
