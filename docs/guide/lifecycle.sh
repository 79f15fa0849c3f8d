#!/usr/bin/env bash
# The walkthrough of docs/guide/lifecycle.md. From the repository root, after `npm ci`: bash docs/guide/lifecycle.sh
set -euo pipefail
. docs/guide/funded-contract.sh

# 7. Release both: the contract is completed; the payouts follow payout_delay_days later.
post $CLIENT $B/contracts/$CONTRACT/milestones/$M1/release | jq -c '{milestone: .milestone.status, contract: .contract.status}'
# {"milestone":"released","contract":"active"}
post $CLIENT $B/contracts/$CONTRACT/milestones/$M2/release | jq -c '{milestone: .milestone.status, payout_due_at: .milestone.payout_due_at, contract: .contract.status}'
# {"milestone":"released","payout_due_at":"…","contract":"completed"}
for _ in $(seq 30); do   # the payout job pays 3 "days" (3 s) after the release
  [ "$(get $WORKER $B/contracts/$CONTRACT | jq '[.milestones[].status] | all(. == "paid")')" = true ] && break; sleep 1
done
get $WORKER $B/contracts/$CONTRACT | jq -c '{status, milestones: [.milestones[] | {title, status}]}'
# {"status":"completed","milestones":[{"title":"Kick-off call","status":"paid"},{"title":"Parser and tests","status":"paid"}]}
