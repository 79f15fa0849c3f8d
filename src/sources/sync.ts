// One sync of one source: read its listing over HTTP (outside any transaction), map each item,
// then write the listing in one transaction. Whatever goes wrong with a source is logged and
// returned as its result; it never throws, so the other sources (and the job) carry on.
import type { Db, Executor } from '../../db/client.ts';
import { applyExternalGigs, lockSource, type ApplyCounts } from '../../db/repositories/external-gigs.ts';
import type { SourceConfig } from './config.ts';
import { newId } from '../ids.ts';
import { DEFAULT_FETCH_LIMITS, type FeedAccess, fetchText, type FetchLimits } from './http.ts';
import { readGithubIssues } from './github-issues.ts';
import { parseJsonFeed } from './json-feed.ts';
import { parseRss } from './rss.ts';
import { parseAtom } from './atom.ts';
import { ItemError, toExternalGig, type ExternalGig, type RawItem } from './mapper.ts';

/** pino's shape; the server passes its logger, the CLI one on stderr. */
export interface SyncLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SyncDeps {
  db: Db;
  log: SyncLog;
  limits?: FetchLimits;
  /** Where token_env is looked up (process.env by default). */
  env?: NodeJS.ProcessEnv;
  /** SOURCES_ALLOW_PRIVATE_URLS: feeds may be on loopback and private networks (their own origin only). */
  allowPrivateUrls?: boolean;
  /** Runs in the sync's transaction with the gigs it inserted or changed (e.g. to enqueue their embeddings). */
  afterWrite?: (tx: Executor, changedGigIds: string[]) => Promise<void>;
}

export interface SyncResult extends ApplyCounts {
  source: string;
  ok: boolean;
  /** Why the source was skipped, when !ok. */
  error?: string;
  /** Items in the listing, and those of them that could not become gigs. */
  fetched: number;
  skipped: number;
}

interface Listing {
  items: RawItem[];
  complete: boolean;
}

const ACCEPT: Record<string, string> = {
  json_feed: 'application/feed+json, application/json;q=0.9, */*;q=0.1',
  rss: 'application/rss+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
  atom: 'application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1',
};

async function readListing(source: SourceConfig, deps: SyncDeps): Promise<Listing> {
  const limits = deps.limits ?? DEFAULT_FETCH_LIMITS;
  const access: FeedAccess = { allowPrivate: deps.allowPrivateUrls ?? false };
  if (source.kind === 'github_issues') {
    const warn = (message: string) => deps.log.warn({ source: source.name }, message);
    return readGithubIssues(source, { limits, access }, deps.env ?? process.env, warn);
  }
  const { body } = await fetchText(source.url, { accept: ACCEPT[source.kind]! }, limits, access);
  const parse = source.kind === 'json_feed' ? parseJsonFeed : source.kind === 'rss' ? parseRss : parseAtom;
  return { items: parse(body, source.url), complete: true };
}

const LOGGED_SKIPS = 5;

/** The listing's items as gigs; unusable or repeated items are skipped, their ids still count as listed. */
function mapItems(source: SourceConfig, raw: RawItem[], log: SyncLog): { gigs: ExternalGig[]; keepIds: Set<string>; skipped: number } {
  const gigs: ExternalGig[] = [];
  const seen = new Set<string>();
  const keepIds = new Set<string>();
  let skipped = 0;
  const bareType = source.kind === 'github_issues' ? 'bounty' : 'fixed';
  raw.forEach((item, index) => {
    try {
      const gig = toExternalGig(item, { baseUrl: source.url, defaultCurrency: source.defaultCurrency, bareType });
      if (seen.has(gig.externalId)) throw new ItemError(`repeats id "${gig.externalId}"`);
      seen.add(gig.externalId);
      gigs.push(gig);
    } catch (err) {
      skipped++;
      const id = typeof item.id === 'string' || typeof item.id === 'number' ? String(item.id).trim() : '';
      if (id) keepIds.add(id);
      if (skipped <= LOGGED_SKIPS)
        log.warn({ source: source.name, item: index, id: id || undefined, reason: (err as Error).message }, 'external item skipped');
    }
  });
  if (skipped > LOGGED_SKIPS) log.warn({ source: source.name, skipped }, `${skipped - LOGGED_SKIPS} more external items skipped`);
  return { gigs, keepIds, skipped };
}

export async function syncSource(deps: SyncDeps, source: SourceConfig): Promise<SyncResult> {
  const result: SyncResult = {
    source: source.name,
    ok: false,
    fetched: 0,
    skipped: 0,
    inserted: 0,
    updated: 0,
    reopened: 0,
    unchanged: 0,
    closed: 0,
  };
  const fail = (error: string): SyncResult => {
    deps.log.error({ source: source.name, kind: source.kind, err: error }, 'source sync failed; the source is skipped this time');
    return { ...result, error };
  };
  let listing: Listing;
  try {
    listing = await readListing(source, deps);
  } catch (err) {
    return fail((err as Error).message);
  }
  const mapped = mapItems(source, listing.items, deps.log);
  result.fetched = listing.items.length;
  result.skipped = mapped.skipped;
  // Items but none usable looks like a changed format, not an emptied board: close nothing.
  if (listing.items.length > 0 && mapped.gigs.length === 0) return fail(`none of the ${listing.items.length} items could be read`);
  try {
    const counts = await deps.db.transaction(async (tx) => {
      await lockSource(tx, source.name);
      const applied = await applyExternalGigs(tx, source.name, mapped.gigs, {
        closeMissing: listing.complete,
        keepIds: mapped.keepIds,
        newId,
      });
      if (deps.afterWrite && applied.changedIds.length) await deps.afterWrite(tx, applied.changedIds);
      return applied;
    });
    const { changedIds: _ids, ...tally } = counts;
    Object.assign(result, tally, { ok: true });
  } catch (err) {
    return fail(`writing the gigs failed: ${(err as Error).message}`);
  }
  deps.log.info({ ...result }, 'source synced');
  return result;
}
