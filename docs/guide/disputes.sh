#!/usr/bin/env bash
# The walkthrough of docs/guide/disputes.md. From the repository root, after `npm ci`: bash docs/guide/disputes.sh
set -euo pipefail
. docs/guide/funded-contract.sh

# The client disputes the funded milestone M2: the contract is disputed, its money held.
DISPUTE=$(post $CLIENT $B/contracts/$CONTRACT/disputes '{"reason":"work_not_as_agreed",
  "description":"The parser drops lines over 4 KB.","milestone_ids":["'$M2'"]}' | jq -r .id)
get $CLIENT $B/contracts/$CONTRACT | jq -c '{status}'
# {"status":"disputed"}

# The other party responds (once); either adds evidence while the dispute is live.
post $WORKER $B/disputes/$DISPUTE/response '{"text":"Long lines were out of scope; I can fix it for a fee."}' | jq -c '{status}'
# {"status":"responded"}
post $CLIENT $B/disputes/$DISPUTE/evidence '{"text":"The gig said: every line of the log."}' | jq -c '{kind, author_role}'
# {"kind":"text","author_role":"client"}

# A recommendation needs a model (LLM_URL); without one there is none, and none is made up.
post $CLIENT $B/disputes/$DISPUTE/recommendation | jq -c '.error.code'
# "RECOMMENDATION_UNAVAILABLE"

# Both accept the same outcome: a 60/40 split. The settlement job refunds the client's part and
# releases the worker's, whose payout follows at once (no delay after a settlement): wait for it.
post $CLIENT $B/disputes/$DISPUTE/resolution '{"outcome":"split","worker_share_percent":60}' | jq -c '{status}'
# {"status":"responded"}
post $WORKER $B/disputes/$DISPUTE/resolution '{"outcome":"split","worker_share_percent":60}' | jq -c '{status}'
# {"status":"resolved"}
for _ in $(seq 30); do
  [ "$(get $CLIENT $B/contracts/$CONTRACT | jq -r .milestones[1].status)" = paid ] && break; sleep 1
done
get $CLIENT $B/contracts/$CONTRACT | jq -c '{status, m2: (.milestones[1] | {status, amount_cents, refunded_cents})}'
# {"status":"active","m2":{"status":"paid","amount_cents":12000,"refunded_cents":4800}}
