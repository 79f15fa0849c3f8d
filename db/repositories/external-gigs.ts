// External gigs (docs/architecture.md §8): rows with source = a configured source's name, no client, keyed by
// (source, external_id). A sync writes a source's whole listing in one transaction: new items are
// inserted, changed ones updated, ones that left the listing closed (never deleted: a worker may
// have bookmarked it), and a closed one that comes back reopened.
import { and, count, eq, inArray, ne, sql } from 'drizzle-orm';
import { gigs } from '../schema.ts';
import type { Executor } from '../client.ts';
import type { CompensationType } from '../schema/column-values.ts';
import type { GigRow } from './gigs.ts';

export interface ApplyCounts {
  inserted: number;
  updated: number;
  /** Of the updated, those that were closed and are back in the listing. */
  reopened: number;
  unchanged: number;
  closed: number;
}

export interface ApplyResult extends ApplyCounts {
  /** The gigs inserted or updated (reopened included): what derived data (embeddings) must follow. */
  changedIds: string[];
}

export interface ApplyOptions {
  /** False when the listing may be partial (GitHub's incomplete_results, a page limit): nothing is closed. */
  closeMissing: boolean;
  /** Ids still in the listing whose items could not be read this time: left as they are, not closed. */
  keepIds: ReadonlySet<string>;
  now?: Date;
  /** Makes the id of each gig inserted. */
  newId: () => string;
}

/**
 * Serializes syncs of one source (the schedule, a second server process, `sources sync` on the
 * CLI) for the rest of the transaction, so that each sees the rows the previous one left.
 */
export async function lockSource(tx: Executor, source: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`gigmarket:source-sync:${source}`}))`);
}

/** One item of a source's listing, as the connectors map it. */
export interface ExternalGig {
  externalId: string;
  title: string;
  description: string;
  tags: string[];
  compensationType: CompensationType;
  compensationMinCents: number | null;
  compensationMaxCents: number | null;
  currency: string;
  url: string;
  /** null when the feed gives no usable date (a new gig then counts from its first sync). */
  postedAt: Date | null;
}

type Fields = Pick<
  GigRow,
  | 'title'
  | 'description'
  | 'tags'
  | 'compensationType'
  | 'compensationMinCents'
  | 'compensationMaxCents'
  | 'currency'
  | 'url'
  | 'postedAt'
  | 'status'
>;

function fieldsOf(item: ExternalGig, postedAt: Date): Fields {
  return {
    title: item.title,
    description: item.description,
    tags: item.tags,
    compensationType: item.compensationType,
    compensationMinCents: item.compensationMinCents,
    compensationMaxCents: item.compensationMaxCents,
    currency: item.currency,
    url: item.url,
    postedAt,
    status: 'open',
  };
}

function same(row: GigRow, f: Fields): boolean {
  return (
    row.title === f.title &&
    row.description === f.description &&
    row.tags.length === f.tags.length &&
    row.tags.every((t, i) => t === f.tags[i]) &&
    row.compensationType === f.compensationType &&
    row.compensationMinCents === f.compensationMinCents &&
    row.compensationMaxCents === f.compensationMaxCents &&
    row.currency === f.currency &&
    row.url === f.url &&
    row.postedAt.getTime() === f.postedAt.getTime() &&
    row.status === f.status
  );
}

const INSERT_CHUNK = 200;

/**
 * Writes `items` (distinct external ids) as the current listing of `source`. Call inside a
 * transaction after lockSource. Rows whose fields did not change are not touched, so updated_at
 * says when the source last changed the gig.
 */
export async function applyExternalGigs(tx: Executor, source: string, items: ExternalGig[], options: ApplyOptions): Promise<ApplyResult> {
  const now = options.now ?? new Date();
  const existing = new Map((await tx.select().from(gigs).where(eq(gigs.source, source))).map((r) => [r.externalId!, r]));
  const counts: ApplyResult = { inserted: 0, updated: 0, reopened: 0, unchanged: 0, closed: 0, changedIds: [] };
  const inserts: (typeof gigs.$inferInsert)[] = [];
  const listed = new Set<string>(options.keepIds);

  for (const item of items) {
    listed.add(item.externalId);
    const row = existing.get(item.externalId);
    // A feed without dates: a gig counts from its first sync and keeps that date.
    const fields = fieldsOf(item, item.postedAt ?? row?.postedAt ?? now);
    if (!row) {
      inserts.push({
        ...fields,
        id: options.newId(),
        clientUserId: null,
        source,
        externalId: item.externalId,
        scope: '',
        rateCents: null,
        createdAt: now,
        updatedAt: now,
      });
      continue;
    }
    if (same(row, fields)) {
      counts.unchanged++;
      continue;
    }
    await tx
      .update(gigs)
      .set({ ...fields, updatedAt: now })
      .where(eq(gigs.id, row.id));
    counts.changedIds.push(row.id);
    counts.updated++;
    if (row.status === 'closed') counts.reopened++;
  }
  for (let i = 0; i < inserts.length; i += INSERT_CHUNK) {
    await tx.insert(gigs).values(inserts.slice(i, i + INSERT_CHUNK));
  }
  counts.inserted = inserts.length;
  counts.changedIds.push(...inserts.map((r) => r.id));

  if (options.closeMissing) {
    const gone = [...existing.values()].filter((r) => r.status !== 'closed' && !listed.has(r.externalId!)).map((r) => r.id);
    for (let i = 0; i < gone.length; i += INSERT_CHUNK) {
      await tx
        .update(gigs)
        .set({ status: 'closed', updatedAt: now })
        .where(inArray(gigs.id, gone.slice(i, i + INSERT_CHUNK)));
    }
    counts.closed = gone.length;
  }
  return counts;
}

/** How many gigs of each external source are open and closed (for `sources list`). */
export async function externalGigCounts(db: Executor): Promise<Map<string, { open: number; closed: number }>> {
  const rows = await db
    .select({ source: gigs.source, status: gigs.status, n: count() })
    .from(gigs)
    .where(ne(gigs.source, 'native'))
    .groupBy(gigs.source, gigs.status);
  const counts = new Map<string, { open: number; closed: number }>();
  for (const r of rows) {
    const c = counts.get(r.source) ?? { open: 0, closed: 0 };
    if (r.status === 'closed') c.closed += Number(r.n);
    else c.open += Number(r.n);
    counts.set(r.source, c);
  }
  return counts;
}

/** The external gigs of one source, by external id (for tests and the CLI). */
export async function externalGigsOf(db: Executor, source: string): Promise<GigRow[]> {
  return db
    .select()
    .from(gigs)
    .where(and(eq(gigs.source, source), ne(gigs.source, 'native')))
    .orderBy(gigs.externalId);
}
