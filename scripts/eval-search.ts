// npm run eval:search — ranking quality of discovery search on the hand-labelled set in
// eval/search (see its README). Loads the gigs into a fresh database (PGlite in memory, or a new
// database on DATABASE_URL's server, dropped at the end), runs every query through searchGigs (the
// code the API runs) and prints nDCG@10 and recall@20 for each component alone, the fusions, and
// the ranking as served. Semantic figures need an embeddings endpoint: EMBEDDINGS_URL, or
// `--fake-embeddings` for the local hashed-bag-of-words fake (a protocol stand-in, not a model).
// `--tune` searches fusion weights on the odd-numbered queries and reports them on the even ones.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { migrate, openDatabase, type Database } from '../db/client.ts';
import { gigs } from '../db/schema.ts';
import { insertUser } from '../db/repositories/users.ts';
import { newId } from '../src/ids.ts';
import { loadConfig, type EmbeddingsSettings } from '../src/config.ts';
import { searchGigs, type Explainer, type SearchContext, type SearchRequest } from '../src/search/service.ts';
import type { RankedRow } from '../src/search/ranking-sql.ts';
import {
  applyFeedback,
  DEFAULT_WEIGHTS,
  freshness,
  fuse,
  lexicalScore,
  reciprocalRankFusion,
  structuredScore,
  type RankingWeights,
} from '../src/search/scoring.ts';
import { forgetCorpus, tagVocabulary } from '../src/search/vocabulary.ts';
import { sql } from 'drizzle-orm';
import { embedMissingGigs } from '../src/search/gig-embeddings.ts';
import type { CompensationType } from '../src/domain/gig.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface EvalGig {
  key: string;
  title: string;
  description: string;
  tags: string[];
  compensation_type: CompensationType;
  rate_cents: number | null;
  compensation_min_cents: number | null;
  compensation_max_cents: number | null;
  currency: string;
  source: string;
  url: string | null;
  posted_days_ago: number;
}
interface EvalQuery {
  id: string;
  q: string;
  intent: string;
  judgments: Record<string, number>;
  tags?: string[];
  min_compensation_cents?: number;
  compensation_type?: CompensationType;
  currency?: string;
  sources?: string[];
}

const readJsonl = <T>(file: string): T[] =>
  fs
    .readFileSync(path.join(ROOT, 'eval/search', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

export const evalGigs = () => readJsonl<EvalGig>('gigs.jsonl');
const evalQueries = () => readJsonl<EvalQuery>('queries.jsonl');

/** A fresh database: PGlite in memory, or a new database on DATABASE_URL's server. */
async function freshDatabase(): Promise<{ database: Database; drop(): Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const database = await openDatabase({});
    await migrate(database);
    return {
      database,
      drop: async () => {
        await database.close();
      },
    };
  }
  const name = `gm_eval_${randomBytes(5).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), max: 4 });
  await migrate(database);
  return {
    database,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** Every gig open, posted `posted_days_ago` before `now`; native ones get a client. Returns id -> key. */
async function loadGigs(database: Database, list: EvalGig[], now: Date): Promise<Map<string, string>> {
  const client = await insertUser(database.db, { id: newId(), displayName: 'Eval client' });
  const keyOf = new Map<string, string>();
  const rows = list.map((g) => {
    const id = newId();
    keyOf.set(id, g.key);
    const native = g.source === 'native';
    return {
      id,
      clientUserId: native ? client.id : null,
      title: g.title,
      description: g.description,
      tags: g.tags,
      compensationType: g.compensation_type,
      rateCents: g.rate_cents,
      compensationMinCents: g.compensation_min_cents,
      compensationMaxCents: g.compensation_max_cents,
      currency: g.currency,
      status: 'open' as const,
      source: g.source,
      externalId: native ? null : g.key,
      url: g.url,
      postedAt: new Date(now.getTime() - g.posted_days_ago * 86_400_000),
    };
  });
  for (let i = 0; i < rows.length; i += 100) await database.db.insert(gigs).values(rows.slice(i, i + 100));
  // Statistics, as autovacuum keeps them on a server: how common each word is comes from them.
  await database.db.execute(sql`analyze gigs`);
  forgetCorpus(database.db);
  return keyOf;
}

function requestOf(q: EvalQuery, limit: number, cursor?: string): SearchRequest {
  return {
    q: q.q,
    tags: q.tags,
    minCompensationCents: q.min_compensation_cents,
    compensationType: q.compensation_type,
    currency: q.currency,
    sources: q.sources,
    limit,
    cursor,
  };
}

// --- metrics ----------------------------------------------------------------------------------

export function ndcgAt(ranked: string[], judgments: Record<string, number>, k = 10): number {
  const dcg = ranked.slice(0, k).reduce((s, key, i) => s + (judgments[key] ?? 0) / Math.log2(i + 2), 0);
  const ideal = Object.values(judgments)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(ranked: string[], judgments: Record<string, number>, k = 20): number {
  const relevant = Object.entries(judgments)
    .filter(([, g]) => g >= 1)
    .map(([key]) => key);
  if (!relevant.length) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((key) => top.has(key)).length / relevant.length;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

// --- rankings from the candidates' components --------------------------------------------------

interface Candidates {
  query: EvalQuery;
  rows: RankedRow[];
  explainer: Explainer;
}

/** scoring.ts over a row's raw components, under other weights (freshness recomputed for its half-life). */
function scoreWith(row: RankedRow, e: Explainer, w: RankingWeights): number {
  const n = e.requested.size;
  const ageDays = (e.asOf.getTime() / 1000 - row.posted_epoch) / 86400;
  const structured = structuredScore(
    {
      skills: row.skills_covered === null || !n ? null : row.skills_covered / n,
      compensation: row.compensation_fit,
      freshness: freshness(ageDays, w),
    },
    w,
  );
  const lexical = row.lexical_rank === null ? null : lexicalScore(row.lexical_rank, w);
  const semantic = row.semantic === null ? null : Math.max(0, row.semantic);
  return applyFeedback(fuse({ lexical, structured, semantic }, w), row.signal);
}

function rankBy(c: Candidates, score: (row: RankedRow) => number, keyOf: Map<string, string>): string[] {
  return c.rows
    .map((row) => ({ row, s: score(row) }))
    .sort((a, b) => b.s - a.s || (a.row.id < b.row.id ? 1 : -1))
    .map((x) => keyOf.get(x.row.id)!);
}

interface Figures {
  ndcg: number;
  recall: number;
}

function evaluate(cands: Candidates[], rank: (c: Candidates) => string[]): Figures {
  const ndcg: number[] = [];
  const recall: number[] = [];
  for (const c of cands) {
    const ranked = rank(c);
    ndcg.push(ndcgAt(ranked, c.query.judgments));
    recall.push(recallAt(ranked, c.query.judgments));
  }
  return { ndcg: mean(ndcg), recall: mean(recall) };
}

const only = (w: RankingWeights, part: 'lexical' | 'structured' | 'semantic'): RankingWeights => ({
  ...w,
  lexical: part === 'lexical' ? 1 : 0,
  structured: part === 'structured' ? 1 : 0,
  semantic: part === 'semantic' ? 1 : 0,
});

function rrfRanking(
  c: Candidates,
  w: RankingWeights,
  keyOf: Map<string, string>,
  parts: ('lexical' | 'structured' | 'semantic')[],
): string[] {
  const rankings = parts.map((p) => rankBy(c, (r) => scoreWith(r, c.explainer, only(w, p)), keyOf));
  const fused = reciprocalRankFusion(rankings);
  return [...fused.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).map(([key]) => key);
}

/** The grid the weights were chosen from. */
function* grid(semantic: boolean): Generator<RankingWeights> {
  for (const lexicalNormalization of [0, 1] as const)
    for (const structured of [0.1, 0.25, 0.5, 0.75, 1, 1.5])
      for (const sem of semantic ? [0.25, 0.5, 1, 2] : [DEFAULT_WEIGHTS.semantic])
        for (const skills of [1, 2, 4, 8])
          for (const lexicalSaturation of [0.05, 0.1, 0.2, 0.5, 1])
            for (const freshnessHalfLifeDays of [14, 30, 90])
              for (const commonShare of [0.05, 0.1, 1]) {
                yield {
                  lexical: 1,
                  structured,
                  semantic: sem,
                  skills,
                  compensation: 1,
                  freshness: 1,
                  lexicalSaturation,
                  lexicalNormalization,
                  freshnessHalfLifeDays,
                  commonShare,
                };
              }
}

async function main() {
  const args = new Set(process.argv.slice(2));
  let fake: { env: Record<string, string>; close(): Promise<void> } | undefined;
  if (args.has('--fake-embeddings')) {
    const { startFakeEmbeddings } = await import('../tests/fakes/embeddings.ts');
    fake = await startFakeEmbeddings({ dims: 256 });
  }
  const embeddings: EmbeddingsSettings | undefined = loadConfig({
    ...process.env,
    ...(fake?.env ?? {}),
    EMBEDDINGS_TIMEOUT_MS: '30000',
  }).embeddings;
  const { database, drop } = await freshDatabase();
  try {
    const now = new Date();
    const gigList = evalGigs();
    const queries = evalQueries();
    const keyOf = await loadGigs(database, gigList, now);
    await tagVocabulary(database.db, { fresh: true });
    if (embeddings) await embedMissingGigs(database.db, embeddings, 1000);
    const user = await insertUser(database.db, { id: newId(), displayName: 'Eval searcher' });
    const deps: SearchContext = { db: database.db, config: { embeddings } };
    const semantic = Boolean(embeddings);
    console.log(
      `eval:search on ${database.kind === 'pglite' ? 'PGlite (in memory)' : 'server Postgres'}: ${gigList.length} gigs, ${queries.length} queries` +
        `, semantic ${semantic ? `on (${embeddings!.model} at ${embeddings!.url}${fake ? ', the local fake' : ''})` : 'off (no EMBEDDINGS_URL)'}`,
    );

    // All candidates of every query with their components, once per setting that changes what
    // the SQL returns (the others are recomputed from the components).
    const candidateSets = new Map<string, Candidates[]>();
    const setKey = (w: RankingWeights) => `${w.lexicalNormalization}/${w.commonShare}`;
    const candidatesFor = async (w: RankingWeights) => {
      let list = candidateSets.get(setKey(w));
      if (!list) {
        list = [];
        for (const query of queries) {
          const result = await searchGigs(deps, user.id, requestOf(query, 5000), { weights: w, now });
          list.push({ query, rows: result.rows, explainer: result.explainer });
        }
        candidateSets.set(setKey(w), list);
      }
      return list;
    };

    const rows: [string, Figures][] = [];
    const w = DEFAULT_WEIGHTS;
    const cands = await candidatesFor(w);
    rows.push(['lexical alone', evaluate(cands, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, only(w, 'lexical')), keyOf))]);
    rows.push(['structured alone', evaluate(cands, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, only(w, 'structured')), keyOf))]);
    if (semantic)
      rows.push(['semantic alone', evaluate(cands, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, only(w, 'semantic')), keyOf))]);
    rows.push(['RRF (lexical + structured), k = 60', evaluate(cands, (c) => rrfRanking(c, w, keyOf, ['lexical', 'structured']))]);
    if (semantic)
      rows.push([
        'RRF (lexical + structured + semantic)',
        evaluate(cands, (c) => rrfRanking(c, w, keyOf, ['lexical', 'structured', 'semantic'])),
      ]);
    const noSemantic = { ...w, semantic: 0 };
    rows.push([
      'weighted sum, lexical + structured',
      evaluate(cands, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, noSemantic), keyOf)),
    ]);
    if (semantic)
      rows.push([
        'weighted sum, lexical + structured + semantic',
        evaluate(cands, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, w), keyOf)),
      ]);

    // As served: the API's path, two pages of 10 through the cursor.
    const served: Figures[] = [];
    for (const query of queries) {
      const first = await searchGigs(deps, user.id, requestOf(query, 10), { now });
      const second = first.next_cursor ? await searchGigs(deps, user.id, requestOf(query, 10, first.next_cursor), { now }) : undefined;
      const ranked = [...first.data, ...(second?.data ?? [])].map((g) => keyOf.get(g.id)!);
      served.push({ ndcg: ndcgAt(ranked, query.judgments), recall: recallAt(ranked, query.judgments) });
    }
    rows.push([
      `as served (DEFAULT_WEIGHTS${semantic ? ', with semantic' : ''}, 2 pages of 10)`,
      { ndcg: mean(served.map((s) => s.ndcg)), recall: mean(served.map((s) => s.recall)) },
    ]);

    console.log(`\n${'ranking'.padEnd(52)} nDCG@10  recall@20`);
    for (const [name, f] of rows) console.log(`${name.padEnd(52)} ${f.ndcg.toFixed(3).padStart(7)}  ${f.recall.toFixed(3).padStart(9)}`);
    console.log(`\nDEFAULT_WEIGHTS: ${JSON.stringify(w)}`);

    if (args.has('--tune')) {
      const odd = (c: Candidates) => Number(c.query.id.slice(1)) % 2 === 1;
      let best: { w: RankingWeights; train: number } | undefined;
      const tried: { w: RankingWeights; train: number }[] = [];
      for (const g of grid(semantic)) {
        const train = evaluate((await candidatesFor(g)).filter(odd), (c) => rankBy(c, (r) => scoreWith(r, c.explainer, g), keyOf)).ndcg;
        tried.push({ w: g, train });
        if (!best || train > best.train + 1e-9) best = { w: g, train };
      }
      const b = best!.w;
      const all = await candidatesFor(b);
      const test = evaluate(
        all.filter((c) => !odd(c)),
        (c) => rankBy(c, (r) => scoreWith(r, c.explainer, b), keyOf),
      );
      const whole = evaluate(all, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, b), keyOf));
      const current = evaluate(
        (await candidatesFor(w)).filter((c) => !odd(c)),
        (c) => rankBy(c, (r) => scoreWith(r, c.explainer, w), keyOf),
      );
      console.log(`\ntuned on odd queries: ${JSON.stringify(b)}`);
      console.log(
        `  odd (train) nDCG@10 ${best!.train.toFixed(3)}; even (held out) nDCG@10 ${test.ndcg.toFixed(3)} recall@20 ${test.recall.toFixed(3)}` +
          ` (DEFAULT_WEIGHTS on even: ${current.ndcg.toFixed(3)}); all ${whole.ndcg.toFixed(3)} / ${whole.recall.toFixed(3)}`,
      );
      // The best per retrieval setting and freshness half-life: what each costs in quality.
      console.log('\nbest per commonShare and half-life (trained on odd; held out = even; all):');
      const groups = new Map<string, { w: RankingWeights; train: number }>();
      for (const t of tried) {
        const k = `commonShare ${t.w.commonShare}, half-life ${t.w.freshnessHalfLifeDays} d`;
        if (!groups.has(k) || t.train > groups.get(k)!.train + 1e-9) groups.set(k, t);
      }
      for (const [k, t] of groups) {
        const set = await candidatesFor(t.w);
        const even = evaluate(
          set.filter((c) => !odd(c)),
          (c) => rankBy(c, (r) => scoreWith(r, c.explainer, t.w), keyOf),
        );
        const everything = evaluate(set, (c) => rankBy(c, (r) => scoreWith(r, c.explainer, t.w), keyOf));
        console.log(
          `  ${k.padEnd(36)} train ${t.train.toFixed(3)}  held out ${even.ndcg.toFixed(3)}  all ${everything.ndcg.toFixed(3)} / ${everything.recall.toFixed(3)}` +
            `  (structured ${t.w.structured}, skills ${t.w.skills}, saturation ${t.w.lexicalSaturation}, norm ${t.w.lexicalNormalization}${semantic ? `, semantic ${t.w.semantic}` : ''})`,
        );
      }
    }
    if (args.has('--per-query')) {
      for (const query of queries) {
        const r = await searchGigs(deps, user.id, requestOf(query, 10), { now });
        const ranked = r.data.map((g) => keyOf.get(g.id)!);
        console.log(
          `${query.id} ${ndcgAt(ranked, query.judgments).toFixed(2)} ${JSON.stringify(query.q).slice(0, 40).padEnd(40)} ${ranked.map((k) => `${k}${query.judgments[k] ? `(${query.judgments[k]})` : ''}`).join(' ')}`,
        );
      }
    }
  } finally {
    await drop();
    await fake?.close();
  }
}

await main();
