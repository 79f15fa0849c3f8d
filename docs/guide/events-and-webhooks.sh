#!/usr/bin/env bash
# The walkthrough of docs/guide/events-and-webhooks.md. From the repository root, after `npm ci`:
# bash docs/guide/events-and-webhooks.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

KEY=$(npm run -s cli -- create-user Ada --json | jq -r .api_key)
start_server

# Every change writes an event; an agent that cannot receive HTTP reads the feed, newest first.
curl -s $B/gigs -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"title":"Translate a README"}' > /dev/null
curl -s $B/events -H "authorization: Bearer $KEY" | jq -c '.data[] | {type, by_a_key: (.actor.api_key_id != null)}'
# {"type":"gig.created","by_a_key":true}
# {"type":"api_key.created","by_a_key":false}
LAST_SEEN_ID=$(curl -s $B/events -H "authorization: Bearer $KEY" | jq -r '.data[0].id')

# Polling: what happened after the last event seen, oldest first.
curl -s $B/gigs -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"title":"Proofread a manual"}' > /dev/null
curl -s "$B/events?after=$LAST_SEEN_ID" -H "authorization: Bearer $KEY" | jq -c '.data[] | {type, title: .data.title}'
# {"type":"gig.created","title":"Proofread a manual"}

# Webhooks go to public addresses only: a receiver on this machine is refused, and the refusal
# names the setting that allows it outside production.
curl -s $B/webhooks -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"url":"http://127.0.0.1:9/hooks"}' | jq -r '.error.issues[0].message'
# 127.0.0.1 is a loopback address; webhooks are delivered to public addresses only; set WEBHOOKS_ALLOW_PRIVATE_URLS=true to allow it for local testing

# For local testing, restart with WEBHOOKS_ALLOW_PRIVATE_URLS=true and register a local receiver.
stop_server
export WEBHOOKS_ALLOW_PRIVATE_URLS=true
start_server
RECEIVER_PORT=$(free_port)
ENDPOINT=$(curl -s $B/webhooks -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"url":"http://127.0.0.1:'$RECEIVER_PORT'/hooks","description":"local receiver","event_types":["gig.created","gig.updated"]}')
echo "$ENDPOINT" | jq -c '{enabled, event_types, secret: (.secret | startswith("whsec_"))}'
# {"enabled":true,"event_types":["gig.created","gig.updated"],"secret":true}
GIGMARKET_WEBHOOK_SECRET=$(echo "$ENDPOINT" | jq -r .secret) PORT=$RECEIVER_PORT \
  node docs/guide/webhook-receiver.mjs > $WORK/receiver.log & RECEIVER=$!
until grep -q listening $WORK/receiver.log; do sleep 0.1; done
WEBHOOK=$(echo "$ENDPOINT" | jq -r .id)

# A test message now, then a real event; the receiver verifies both signatures.
curl -s -X POST $B/webhooks/$WEBHOOK/test -H "authorization: Bearer $KEY" | jq -c '{status_code, succeeded}'
# {"status_code":204,"succeeded":true}
curl -s $B/gigs -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"title":"Index a mailing list"}' > /dev/null
until [ "$(curl -s $B/webhooks/$WEBHOOK/deliveries -H "authorization: Bearer $KEY" | jq '.data | length')" = 2 ]; do sleep 0.2; done
cat $WORK/receiver.log
# listening on http://127.0.0.1:…
# verified webhook.test …
# verified gig.created …
curl -s $B/webhooks/$WEBHOOK/deliveries -H "authorization: Bearer $KEY" | jq -c '.data[] | {event_type, attempt, status_code}'
# {"event_type":"gig.created","attempt":1,"status_code":204}
# {"event_type":"webhook.test","attempt":1,"status_code":204}
kill $RECEIVER
