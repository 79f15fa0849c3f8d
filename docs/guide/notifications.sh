#!/usr/bin/env bash
# The walkthrough of docs/guide/notifications.md. From the repository root, after `npm ci`:
# bash docs/guide/notifications.sh
set -euo pipefail

. docs/guide/throwaway-server.sh

# Email goes to a local mail server that prints what it receives; then steps 1-6 of the lifecycle.
SMTP_PORT=$(free_port)
PORT=$SMTP_PORT node docs/guide/smtp-sink.mjs > $WORK/mail.log & SINK=$!
until grep -q listening $WORK/mail.log; do sleep 0.1; done
export SMTP_URL=smtp://127.0.0.1:$SMTP_PORT MAIL_FROM="gigmarket <noreply@example.com>"
. docs/guide/funded-contract.sh

# The worker's inbox holds what needed them so far, newest first (written moments after each change).
until [ "$(curl -s $B/notifications/inbox/unread-count -H "authorization: Bearer $WORKER" | jq .unread)" -ge 4 ]; do sleep 0.2; done
curl -s "$B/notifications/inbox/messages?unread=true" -H "authorization: Bearer $WORKER" | jq -c '.data[] | {title, link}'
# {"title":"Milestone funded: \"Parser and tests\"","link":"http://localhost:…/#/contracts/…"}
# {"title":"Milestone funded: \"Kick-off call\"","link":"http://localhost:…/#/contracts/…"}
# {"title":"Complete your identity checks for \"Build a log parser in Rust\"","link":"http://localhost:…/#/contracts/…"}
# {"title":"Approve your contract: \"Build a log parser in Rust\"","link":"http://localhost:…/#/contracts/…"}

# With an email on the profile (private: shown to its owner only), email is a channel too.
curl -s -X PATCH $B/profile/me -H "authorization: Bearer $WORKER" -H 'content-type: application/json' \
  -d '{"email":"worker@example.com"}' | jq -c '{email}'
# {"email":"worker@example.com"}
curl -s $B/notifications -H "authorization: Bearer $WORKER" | jq -c '.data[] | {channel, address, customized}'
# {"channel":"inbox","address":null,"customized":false}
# {"channel":"email","address":"worker@example.com","customized":false}
curl -s -X POST $B/contracts/$CONTRACT/milestones/$M2/release -H "authorization: Bearer $CLIENT" | jq -c '{status: .milestone.status}'
# {"status":"released"}
until grep -q released $WORK/mail.log; do sleep 0.2; done
cat $WORK/mail.log
# listening
# mail to worker@example.com: Milestone released: "Parser and tests"

# Read one, then all; the unread count follows (the payout's message may have come meanwhile).
FIRST=$(curl -s "$B/notifications/inbox/messages?unread=true" -H "authorization: Bearer $WORKER" | jq -r '.data[0].id')
curl -s -X POST $B/notifications/inbox/messages/$FIRST/read -H "authorization: Bearer $WORKER" | jq -c '{read}'
# {"read":true}
curl -s $B/notifications/inbox/unread-count -H "authorization: Bearer $WORKER" | jq -c .
# {"unread":…}
curl -s -X POST $B/notifications/inbox/read-all -H "authorization: Bearer $WORKER" | jq -c .
# {"marked":…}

# Choose what a channel receives ([] turns it off).
curl -s -X PATCH $B/notifications/email -H "authorization: Bearer $WORKER" -H 'content-type: application/json' \
  -d '{"event_types":["contract.created","contract.updated","contract.expired"]}' | jq -c '{channel, event_types, customized}'
# {"channel":"email","event_types":["contract.created","contract.updated","contract.expired"],"customized":true}
kill $SINK
