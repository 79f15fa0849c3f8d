#!/usr/bin/env bash
# The walkthrough of docs/guide/retries.md. From the repository root, after `npm ci`: bash docs/guide/retries.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

KEY=$(npm run -s cli -- create-user Ada --json | jq -r .api_key)
WORKER=$(npm run -s cli -- create-user Bo --json | jq -r .api_key)
start_server

# A POST with an Idempotency-Key, sent twice (a retry after a lost answer): one gig, the same answer.
for i in 1 2; do
  curl -s $B/gigs -H "authorization: Bearer $KEY" -H 'Idempotency-Key: gig-2026-12-01-a' \
    -H 'content-type: application/json' -d '{"title":"Translate a README"}' | jq -r .id
done | uniq | wc -l
# 1
curl -s "$B/gigs?owner=me" -H "authorization: Bearer $KEY" | jq '.data | length'
# 1

# The same key with another body is refused: a key names one request.
curl -s $B/gigs -H "authorization: Bearer $KEY" -H 'Idempotency-Key: gig-2026-12-01-a' \
  -H 'content-type: application/json' -d '{"title":"Something else"}' | jq -c '.error.code'
# "IDEMPOTENCY_KEY_REUSED"

# A gig nobody applied to may be deleted; once someone applied, it is closed instead (the
# application is their record too).
GIG=$(curl -s $B/gigs -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"title":"Proofread"}' | jq -r .id)
curl -s $B/gigs/$GIG/applications -H "authorization: Bearer $WORKER" -H 'content-type: application/json' -d '{"message":"Happy to."}' > /dev/null
curl -s -X DELETE $B/gigs/$GIG -H "authorization: Bearer $KEY" | jq -c .error.code
# "CONFLICT"
curl -s -X PATCH $B/gigs/$GIG -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"status":"closed"}' | jq -c '{status}'
# {"status":"closed"}
