#!/usr/bin/env bash
# The walkthrough of docs/guide/credits.md. From the repository root, after `npm ci`: bash docs/guide/credits.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

ADA=$(npm run -s cli -- create-user Ada --json)
KEY=$(echo "$ADA" | jq -r .api_key); ADA_ID=$(echo "$ADA" | jq -r .user_id)
start_server

# The balance: a new account opens on the free tier with this month's 20 credits.
curl -s $B/credits -H "authorization: Bearer $KEY" | jq -c .
# {"credits_balance":20,"subscription_tier":"free","monthly_grant":20,"next_grant_at":"…"}

# An agent deducts what it spent; with a reference_id, a repeat deducts nothing.
curl -s $B/credits -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"amount":3,"reason":"match_deduction","reference_id":"match-42"}' | jq -c '{credits_balance, amount: .entry.amount, repeated}'
# {"credits_balance":17,"amount":-3,"repeated":false}
curl -s $B/credits -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"amount":3,"reason":"match_deduction","reference_id":"match-42"}' | jq -c '{credits_balance, amount: .entry.amount, repeated}'
# {"credits_balance":17,"amount":-3,"repeated":true}

# More than the balance: 402, and nothing changes.
curl -s $B/credits -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"amount":500,"reason":"intro_deduction"}' | jq -c .error.code
# "INSUFFICIENT_CREDITS"

# The ledger, newest first.
curl -s $B/credits/transactions -H "authorization: Bearer $KEY" | jq -c '.data[] | {amount, reason}'
# {"amount":-3,"reason":"match_deduction"}
# {"amount":20,"reason":"monthly_grant"}

# Operators use the CLI (on PGlite with the server stopped, like every CLI command).
stop_server
npm run -s cli -- credits grant $ADA_ID 50 --reason "support ticket 12"   # an operator_grant: every run grants
# Granted 50 credits to user …; balance 67.
npm run -s cli -- credits set-tier $ADA_ID pro                             # from the next monthly grant
# user …: 67 credits, pro tier (200 a month; next grant …); the tier's grant applies from the next monthly grant
npm run -s cli -- credits show $ADA_ID
# user …: 67 credits, pro tier (200 a month; next grant …)
