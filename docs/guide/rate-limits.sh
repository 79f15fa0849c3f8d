#!/usr/bin/env bash
# The walkthrough of docs/guide/rate-limits.md, with budgets small enough to spend by hand. From the
# repository root, after `npm ci`: bash docs/guide/rate-limits.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

export RATE_LIMIT_PER_MINUTE=12 RATE_LIMIT_ANONYMOUS_PER_MINUTE=3
KEY=$(npm run -s cli -- create-user Ada --json | jq -r .api_key)
start_server

# Every answer of a limited operation says which budget it drew on and what is left.
curl -s -D - -o /dev/null -H "authorization: Bearer $KEY" $B/gigs | grep -i '^ratelimit'
# ratelimit-policy: "credential";q=12;w=60
# ratelimit: "credential";r=11;t=…

# A search costs 5 units: two fit in what is left, the third does not.
for i in 1 2 3; do curl -s -o /dev/null -w '%{http_code} ' -H "authorization: Bearer $KEY" "$B/discovery/gigs?q=rust"; done; echo
# 200 200 429
curl -s -H "authorization: Bearer $KEY" "$B/discovery/gigs?q=rust" | jq -r .error.message
# rate limit exceeded for this API key: only 1 of its 12 units per 60 s are left and this operation costs 5; retry after … s

# Refused credentials spend the client address's budget; once it is spent, 429 with Retry-After.
for i in 1 2 3 4; do curl -s -o /dev/null -w '%{http_code} ' -H "authorization: Bearer gm_live_wrong" $B/gigs; done; echo
# 401 401 401 429
curl -s -D - -o /dev/null -H "authorization: Bearer gm_live_wrong" $B/gigs | grep -i '^retry-after'
# retry-after: …

# The security headers every response carries (JSON: a CSP of default-src 'none').
curl -s -D - -o /dev/null localhost:$PORT/api/health | grep -iE '^(x-content-type-options|x-frame-options|cross-origin-resource-policy|content-security-policy)'
# content-security-policy: default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'
# cross-origin-resource-policy: same-origin
# x-content-type-options: nosniff
# x-frame-options: DENY
