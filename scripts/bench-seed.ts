// Seeding for bench:search: gigs synthesised from the evaluation set's postings, loaded with COPY
// over two connections (the generated search_tsv is computed by the server, one core each), with
// the gigs table's secondary indexes dropped during the load and built afterwards (much faster
// than keeping a GIN index up to date row by row).
import fs from 'node:fs';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type postgres from 'postgres';
import { progress } from './bench-kit.ts';
import { newId } from '../src/ids.ts';

interface EvalGig {
  title: string;
  description: string;
  tags: string[];
  compensation_type: string;
  rate_cents: number | null;
  compensation_min_cents: number | null;
  compensation_max_cents: number | null;
  currency: string;
  source: string;
  url: string | null;
}

/** A deterministic pseudo-random generator, so every run seeds the same gigs. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COLUMNS = [
  'id',
  'client_user_id',
  'title',
  'description',
  'scope',
  'rate_cents',
  'compensation_type',
  'compensation_min_cents',
  'compensation_max_cents',
  'currency',
  'tags',
  'status',
  'source',
  'external_id',
  'url',
  'posted_at',
] as const;

type Value = string | number | null | string[] | Date;

/** One field in COPY's text format. */
function field(v: Value): string {
  if (v === null) return '\\N';
  const text =
    v instanceof Date
      ? v.toISOString()
      : Array.isArray(v)
        ? `{${v.map((t) => `"${t.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`
        : String(v);
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** Gig rows made from the evaluation set: a posting's sentences reshuffled, plus one sentence of another. */
function* synthesise(templates: EvalGig[], count: number, clientId: string): Generator<Value[]> {
  const random = rng(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const sentences = templates.map((g) => g.description.split(/(?<=[.!?])\s+/));
  const allTags = [...new Set(templates.flatMap((g) => g.tags))];
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const t = Math.floor(random() * templates.length);
    const g = templates[t]!;
    const own = [...sentences[t]!].sort(() => random() - 0.5);
    const description = [...own, pick(pick(sentences))].join(' ');
    const tags = [...new Set(random() < 0.3 ? [...g.tags, pick(allTags)] : g.tags)];
    const scale = 0.8 + random() * 0.4;
    const amount = (x: number | null) => (x === null ? null : Math.round((x * scale) / 100) * 100);
    const native = random() < 0.75;
    yield [
      newId(),
      native ? clientId : null,
      g.title,
      description,
      '',
      amount(g.rate_cents),
      g.compensation_type,
      amount(g.compensation_min_cents),
      amount(g.compensation_max_cents),
      g.currency,
      tags,
      random() < 0.9 ? 'open' : 'closed',
      native ? 'native' : g.source === 'native' ? pick(['remoteok', 'weworkremotely', 'github-bounties']) : g.source,
      native ? null : `bench-${i}`,
      native ? null : `https://jobs.example.com/${i}`,
      new Date(now - random() * 90 * 86_400_000),
    ];
  }
}

const write = (stream: Writable, chunk: string) =>
  new Promise<void>((resolve, reject) => {
    if (stream.write(chunk)) return resolve();
    const fail = (err: Error) => reject(err);
    stream.once('error', fail);
    stream.once('drain', () => {
      stream.off('error', fail);
      resolve();
    });
  });

const end = (stream: Writable) =>
  new Promise<void>((resolve, reject) => {
    stream.once('finish', resolve);
    stream.once('error', reject);
    stream.end();
  });

/**
 * Seeds `count` gigs owned by `clientId` (native ones; a quarter are external) through `sql`
 * (a pool of at least two connections); returns the number of open gigs.
 */
export async function seedGigs(sql: postgres.Sql, root: string, count: number, clientId: string): Promise<number> {
  const templates = fs
    .readFileSync(path.join(root, 'eval/search/gigs.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EvalGig);
  const indexes = await sql<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = current_schema() and tablename = 'gigs'
      and indexname not in (select conname from pg_constraint where conrelid = 'gigs'::regclass)`;
  for (const i of indexes) await sql.unsafe(`drop index "${i.name}"`);

  const bar = progress('seeding gigs', count);
  const streams = await Promise.all([0, 1].map(() => sql.unsafe(`copy gigs (${COLUMNS.join(', ')}) from stdin`).writable()));
  let done = 0;
  let chunk = '';
  let rows = 0;
  for (const row of synthesise(templates, count, clientId)) {
    chunk += `${row.map(field).join('\t')}\n`;
    if (++rows === 2000) {
      // Chunks alternate between the two COPY streams (the server parses each on its own core).
      await write(streams[(done / 2000) % 2]!, chunk);
      done += rows;
      rows = 0;
      chunk = '';
      bar(done);
    }
  }
  if (rows) await write(streams[(done / 2000) % 2]!, chunk);
  await Promise.all(streams.map(end));
  bar(count);

  const built = Date.now();
  // Two at a time, one per connection (the GIN on search_tsv takes longest).
  const queue = [...indexes];
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = queue.shift(); i; i = queue.shift()) await sql.unsafe(`set maintenance_work_mem = '256MB'; ${i.def}`).simple();
    }),
  );
  await sql`vacuum analyze gigs`;
  // The trigger of migration 0014 filled open_gig_tags during the COPY: its statistics and its
  // visibility map (index-only reads) as autovacuum would leave them.
  await sql`vacuum analyze open_gig_tags`;
  console.log(`indexes built and analysed in ${((Date.now() - built) / 1000).toFixed(0)} s`);
  return (await sql<{ open: number }[]>`select count(*)::int as open from gigs where status = 'open'`)[0]!.open;
}
