-- The walk of two-phase discovery (docs/search.md, "Candidates"), hand-written like 0012. An arm
-- of the first phase whose matches are common is read newest first along the posted_at indexes
-- and stops at its limit; one whose matches are few is read through its GIN index. The planner's
-- own estimates for these conditions were 10-100x off, so the walk is not left to it: this
-- function carries the planner settings that leave it only the walk (SET on a function holds
-- while it runs, and for its own statement only), so that a search stays one statement in which
-- each arm is read the way the caller chose. A NULL argument is a condition that does not apply.
-- PL/pgSQL with custom plans: each call is planned with its arguments' values (the limit, the
-- tsquery, which conditions are NULL, so that without `body` the walk is index-only along
-- gigs_open_posted_cover_idx); a SQL function would be planned without them and sort every match.
CREATE FUNCTION "newest_open_gig_ids"(
  head tsquery, body tsquery, any_tags text[], filter_tags text[], min_pay int, compensation text,
  currency_code text, sources text[], created_before timestamptz, lim int
) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 300
SET enable_bitmapscan = off SET enable_seqscan = off SET max_parallel_workers_per_gather = 0
SET plan_cache_mode = force_custom_plan
AS $$ BEGIN
  RETURN QUERY SELECT g.id FROM gigs g
  WHERE g.status = 'open'
    AND (head IS NULL OR g.search_head @@ head)
    AND (body IS NULL OR g.search_tsv @@ body)
    AND (any_tags IS NULL OR g.tags && any_tags)
    AND (filter_tags IS NULL OR g.tags && filter_tags)
    AND (min_pay IS NULL OR coalesce(g.compensation_max_cents, g.rate_cents, g.compensation_min_cents) >= min_pay)
    AND (compensation IS NULL OR g.compensation_type = compensation)
    AND (currency_code IS NULL OR g.currency = currency_code)
    AND (sources IS NULL OR g.source = ANY (sources))
    AND (created_before IS NULL OR g.created_at <= created_before)
  ORDER BY g.posted_at DESC, g.id DESC
  LIMIT lim;
END $$;
