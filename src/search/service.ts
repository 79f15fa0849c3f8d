// Discovery search (docs/architecture.md §8): reads the request into a plan (filters, text, skills, semantic
// input), lets the repository rank it in SQL, and explains every result. The API and the
// evaluation script (scripts/eval-search.ts) both call searchGigs.
import type { Config } from '../config.ts';
import type { Context } from '../context.ts';
import { normalizeTag, type CompensationType } from '../domain/gig.ts';
import { cacheQueryEmbedding, cachedQueryEmbedding } from '../../db/repositories/search.ts';
import { searchGigRowsWithNeighbours, type RankedRow, type SearchPlan, type SemanticInput } from './ranking-sql.ts';
import { decodeRankedCursor, fingerprint, rankedPage } from './cursor.ts';
import { embed, EmbeddingsError, queryKey } from './embeddings.ts';
import { parseText, withoutCommonWords } from './query.ts';
import { ageReason, feedbackReason, payReason, semanticReason, skillsReason, textReasons } from './reasons.ts';
import { applyFeedback, DEFAULT_WEIGHTS, fuse, lexicalScore, payRange, structuredScore, type RankingWeights } from './scoring.ts';
import { canonicalSkill, skillForms } from './skills.ts';
import { commonness, filtersShare, gigCount, headCommonness, tagCommonness, tagVocabulary, usesPgvector } from './vocabulary.ts';
import { isoTimestampOfMs } from '../presenters/timestamps.ts';

/** What a search needs of the context: the database, and the embeddings endpoint if one is configured. */
export type SearchContext = Pick<Context, 'db'> & { config: Pick<Config, 'embeddings'> };

export interface SearchRequest {
  q?: string;
  tags?: string[];
  minCompensationCents?: number;
  compensationType?: CompensationType;
  currency?: string;
  sources?: string[];
  limit: number;
  cursor?: string;
}

export interface SearchOptions {
  /** Another fusion (the evaluation tries several); the API uses DEFAULT_WEIGHTS. */
  weights?: RankingWeights;
  now?: Date;
  /** False ranks without embeddings even when an endpoint is configured. */
  semantic?: boolean;
}

/** The semantic part of a response: whether it ranked, and why not. */
export interface SemanticStatus {
  used: boolean;
  reason: string | null;
  model: string | null;
}

/** Semantic neighbours that become candidates without sharing a word with q. */
export const SEMANTIC_NEIGHBOURS = 100;

/** Whitespace other than a single space: the only text that flattening changes. */
const UNEVEN_SPACE = /[^\S ]| {2}/;
const flatten = (s: string) => (UNEVEN_SPACE.test(s) ? s.replace(/\s+/g, ' ') : s);

/** The first characters of a description, cut at a word. */
export function snippet(text: string, max = 280): string {
  // Flatten only a head long enough to hold the snippet (not each whole description), and only
  // text that needs it: the same result, a fraction of the garbage per search.
  const head = text.length > max * 4 ? flatten(text.slice(0, max * 4)).trimStart() : '';
  const flat = head.length > max + 1 ? head : flatten(text).trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s.,;:!?-]+$/, '')}…`;
}

/** Lowercased, trimmed, without empties or duplicates. */
export function normalizeList(items: readonly string[] | undefined, lower = true): string[] {
  return [...new Set((items ?? []).map((t) => (lower ? t.trim().toLowerCase() : t.trim())).filter(Boolean))];
}

/** The query's embedding (cached by model and text), or why semantic ranking is off. */
export async function querySemantic(
  ctx: SearchContext,
  q: string | null,
): Promise<{ input: SemanticInput | null; status: SemanticStatus }> {
  const settings = ctx.config.embeddings;
  if (!settings) return { input: null, status: { used: false, reason: 'no embeddings endpoint configured', model: null } };
  const off = (reason: string) => ({ input: null, status: { used: false, reason, model: settings.model } });
  if (!q) return off('no text query to compare');
  const key = queryKey(q);
  let vector = await cachedQueryEmbedding(ctx.db, settings.model, key);
  if (!vector) {
    try {
      [vector] = await embed(settings, [q]);
    } catch (err) {
      if (err instanceof EmbeddingsError) return off(`the embeddings endpoint failed (${err.message}); ranked without it`);
      throw err;
    }
    await cacheQueryEmbedding(ctx.db, settings.model, key, vector!);
  }
  const input: SemanticInput = {
    model: settings.model,
    dims: vector!.length,
    vector: vector!,
    neighbours: SEMANTIC_NEIGHBOURS,
    pgvector: await usesPgvector(ctx.db),
  };
  return { input, status: { used: true, reason: null, model: settings.model } };
}

/** What explains one ranked row: the plan's skills and terms, the time it was ranked at, the weights. */
export interface Explainer {
  weights: RankingWeights;
  asOf: Date;
  /** Requested skills by canonical name, each with its forms. */
  requested: Map<string, string[]>;
  /** Term -> the query's words it stands for. */
  origin: Map<string, string>;
  minCompensationCents: number | null;
  semanticUsed: boolean;
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 10_000) / 10_000);

/** A ranked row as the API shows it: the gig's discovery attributes, its score, components and reasons. */
export function presentRanked(row: RankedRow, e: Explainer) {
  const w = e.weights;
  const ageDays = (e.asOf.getTime() / 1000 - row.posted_epoch) / 86400;
  const n = e.requested.size;
  const parts = {
    skills: row.skills_covered === null || !n ? null : row.skills_covered / n,
    compensation: row.compensation_fit,
    freshness: row.freshness,
  };
  const components = {
    lexical: row.lexical_rank === null ? null : lexicalScore(row.lexical_rank, w),
    structured: structuredScore(parts, w),
    semantic: row.semantic === null ? null : Math.max(0, row.semantic),
  };
  const reasons = textReasons({ title: row.title_hits, tags: row.tag_hits, description: row.description_hits }, e.origin);
  if (n) {
    // A gig has a few tags and a search a few skills: plain loops, nothing built per gig but the list.
    const covered: string[] = [];
    for (const [skill, forms] of e.requested) if (forms.some((f) => row.tags.includes(f))) covered.push(skill);
    const r = skillsReason(covered, n);
    if (r) reasons.push(r);
  }
  const range = payRange({
    rateCents: row.rate_cents,
    compensationMinCents: row.compensation_min_cents,
    compensationMaxCents: row.compensation_max_cents,
  });
  if (e.minCompensationCents !== null && range) reasons.push(payReason(row.compensation_type, row.currency, range, e.minCompensationCents));
  if (components.semantic !== null) reasons.push(semanticReason(components.semantic));
  reasons.push(ageReason(ageDays));
  const fb = feedbackReason(row.signal);
  if (fb) reasons.push(fb);
  return {
    id: row.id,
    title: row.title,
    snippet: snippet(row.description),
    compensation_type: row.compensation_type,
    rate_cents: row.rate_cents,
    compensation_min_cents: row.compensation_min_cents,
    compensation_max_cents: row.compensation_max_cents,
    currency: row.currency,
    tags: row.tags,
    source: row.source,
    url: row.url,
    external_id: row.external_id,
    client_user_id: row.client_user_id,
    status: 'open' as const,
    posted_at: isoTimestampOfMs(Math.round(row.posted_epoch * 1000)),
    score: round(row.score)!,
    score_components: {
      lexical: round(components.lexical),
      structured: round(components.structured)!,
      semantic: round(components.semantic),
    },
    structured_components: { skills: round(parts.skills), compensation: round(parts.compensation), freshness: round(parts.freshness)! },
    feedback: row.signal,
    match_reasons: reasons,
  };
}

export type RankedGig = ReturnType<typeof presentRanked>;

/** The score scoring.ts gives a row: the SQL must agree (a test checks it). */
export function expectedScore(row: RankedRow, e: Explainer): number {
  const n = e.requested.size;
  const structured = structuredScore(
    {
      skills: row.skills_covered === null || !n ? null : row.skills_covered / n,
      compensation: row.compensation_fit,
      freshness: row.freshness,
    },
    e.weights,
  );
  const lexical = row.lexical_rank === null ? null : lexicalScore(row.lexical_rank, e.weights);
  const semantic = row.semantic === null ? null : Math.max(0, row.semantic);
  return applyFeedback(fuse({ lexical, structured, semantic }, e.weights), row.signal);
}

export interface SearchResult {
  data: RankedGig[];
  next_cursor: string | null;
  semantic: SemanticStatus;
  notices: string[];
  /** Not in the response: the rows as ranked, for the evaluation and tests. */
  rows: RankedRow[];
  explainer: Explainer;
}

/** The request read into a ranking plan, with what explains it; no ranking yet. */
export async function planSearch(ctx: SearchContext, userId: string, req: SearchRequest, options: SearchOptions = {}) {
  const weights = options.weights ?? DEFAULT_WEIGHTS;
  const q = (req.q ?? '').trim();
  const tags = normalizeList(req.tags?.map(normalizeTag)); // as gig tags are stored
  const sources = normalizeList(req.sources, false);
  const minCompensationCents = req.minCompensationCents ?? null;
  const print = fingerprint({ q, tags, minCompensationCents, t: req.compensationType ?? null, c: req.currency ?? null, sources });
  const after = decodeRankedCursor(req.cursor, print);
  const asOf = after ? new Date(after.asOf) : (options.now ?? new Date());

  const parsed = parseText(q, await tagVocabulary(ctx.db));
  const text = withoutCommonWords(
    parsed,
    await commonness(
      ctx.db,
      parsed.pieces.flatMap((p) => (p.word ? [p.word] : [])),
    ),
    weights.commonShare,
  );
  const notices: string[] = [];
  if (q && text.websearch === null) {
    notices.push(`q has no searchable words ("${q.slice(0, 60)}"), so results are ranked by the filters and structured signals only`);
  }
  for (const s of text.skills.filter((s) => s.corrected)) notices.push(`read "${s.from}" as the skill ${s.skill}`);

  // Requested skills: the tags parameter, then skills named in q; each with its synonyms.
  const requested = new Map<string, string[]>();
  for (const t of tags) requested.set(canonicalSkill(t), [...new Set([...skillForms(t), ...skillForms(canonicalSkill(t))])]);
  for (const s of text.skills) if (!requested.has(s.skill)) requested.set(s.skill, s.forms);
  const origin = new Map(text.terms.map((t) => [t.term, t.from]));

  // How common the words and tags are decides how the first phase reads them (ranking-sql.ts).
  const recallTags = [...new Set(text.skills.flatMap((s) => s.forms))];
  const filterTags = [...new Set(tags.flatMap((t) => requested.get(canonicalSkill(t)) ?? [t]))];
  const armTags = [...new Set([...recallTags, ...filterTags, ...[...requested.values()].flat()])];
  const searched = text.websearch === null ? [] : text.pieces.flatMap((p) => (p.word ? [p.word] : []));
  const sum = (m: Map<string, number>) =>
    Math.min(
      1,
      [...m.values()].reduce((a, b) => a + b, 0),
    );
  const shares = {
    head: sum(await headCommonness(ctx.db, searched)),
    body: sum(await commonness(ctx.db, searched)),
    tags: await tagCommonness(ctx.db, armTags),
    filters: await filtersShare(ctx.db, req.compensationType ?? null, req.currency ?? null, sources),
    gigs: await gigCount(ctx.db),
  };

  const semantic = await querySemantic(
    options.semantic === false ? { ...ctx, config: { embeddings: undefined } } : ctx,
    text.websearch === null ? null : q,
  );
  const plan: SearchPlan = {
    userId,
    filters: {
      tags: filterTags,
      minCompensationCents,
      compensationType: req.compensationType ?? null,
      currency: req.currency ?? null,
      sources,
    },
    websearch: text.websearch,
    allWords: text.allWords,
    hitTerms: text.terms.map((t) => t.term),
    requestedSkills: [...requested.values()],
    recallTags,
    shares,
    semantic: semantic.input,
    weights,
    asOf,
    after: after ? { score: after.score, id: after.id } : null,
    createdBefore: after?.createdBefore ?? null,
    take: req.limit + 1,
  };
  const explainer: Explainer = { weights, asOf, requested, origin, minCompensationCents, semanticUsed: semantic.status.used };
  return { plan, explainer, print, semantic: semantic.status, notices };
}

export async function searchGigs(
  ctx: SearchContext,
  userId: string,
  req: SearchRequest,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const { plan, explainer, print, semantic, notices } = await planSearch(ctx, userId, req, options);
  const rows = await searchGigRowsWithNeighbours(ctx.db, plan);
  // int8 arrives as a string from postgres.js and PGlite alike.
  const rankedAt = rows[0]?.ranked_at;
  const createdBefore = plan.createdBefore ?? (rankedAt === undefined ? undefined : Number(rankedAt));
  const { kept, nextCursor } = rankedPage(rows, req.limit, print, plan.asOf.getTime(), createdBefore);
  if (semantic.used && kept.length && kept.every((r) => r.semantic === null)) {
    notices.push('no gig on this page has an embedding yet; they are computed in the background');
  }
  return {
    data: kept.map((r) => presentRanked(r, explainer)),
    next_cursor: nextCursor,
    semantic,
    notices,
    rows: kept,
    explainer,
  };
}
