# Steps 1-6 of the lifecycle walkthrough (docs/guide/lifecycle.md): two users, a gig, a negotiation,
# both approvals, the worker's identity checks and two funded milestones (M1 of 0, M2 of 12000 cents)
# of the contract CONTRACT, on a throw-away server. Sourced by lifecycle.sh and disputes.sh.
. docs/guide/throwaway-server.sh

# Two users and their keys, before the server opens the (PGlite) data directory.
export PAYOUT_DAY_SECONDS=1   # one payout "day" = 1 s, for the demo
CLIENT=$(npm run -s cli -- create-user "Client Co" --json | jq -r .api_key)
WORKER_JSON=$(npm run -s cli -- create-user "Worker Bee" --json)
WORKER=$(echo "$WORKER_JSON" | jq -r .api_key); WORKER_ID=$(echo "$WORKER_JSON" | jq -r .user_id)
start_server
get()  { curl -s -H "Authorization: Bearer $1" "$2"; }
post() { if [ -n "${3-}" ]; then curl -s -H "Authorization: Bearer $1" -H 'content-type: application/json' -d "$3" "$2"
         else curl -s -X POST -H "Authorization: Bearer $1" "$2"; fi; }

# 1. A gig; the worker applies; the client shortlists (1 credit).
GIG=$(post $CLIENT $B/gigs '{"title":"Build a log parser in Rust","tags":["rust"]}' | jq -r .id)
APP=$(post $WORKER $B/gigs/$GIG/applications '{"message":"I have shipped three parsers."}' | jq -r .id)
post $CLIENT $B/applications/$APP/shortlist | jq -c '{status}'
# {"status":"shortlisted"}

# 2. Negotiate: the client proposes, the worker counter-proposes, the client agrees.
NEG=$(post $CLIENT $B/negotiate '{"gig_id":"'$GIG'","worker_user_id":"'$WORKER_ID'","rate_cents":8000,
  "payout_delay_days":5,"milestones":[{"title":"Everything","amount_cents":10000}]}' | jq -r .id)
post $WORKER $B/negotiations/$NEG/rounds '{"rate_cents":9000,"payout_delay_days":3,"milestones":[
  {"title":"Kick-off call","amount_cents":0},{"title":"Parser and tests","amount_cents":12000}]}' | jq -c '{status, awaiting}'
# {"status":"open","awaiting":"client"}
CONTRACT=$(post $CLIENT $B/negotiations/$NEG/agree | jq -r .contract.id)

# 3. Both owners approve, each only after its human confirmed the terms seen (revision_count 0;
#    had the contract been revised and agreed again since, 409). The second approval, the worker's
#    here, returns connect_url (the worker can also GET .../connect-link).
post $CLIENT $B/contracts/$CONTRACT/approve '{"revision_count":0}' | jq -c '{status: .contract.status, connect_url}'
# {"status":"pending_owner_approval","connect_url":null}
CONNECT=$(post $WORKER $B/contracts/$CONTRACT/approve '{"revision_count":0}' | jq -r .connect_url)
echo "$CONNECT"
# http://localhost:…/sandbox/connect/acct_sandbox_…?token=…&return_url=http%3A%2F%2Flocalhost%3A…%2Fconnect%2Freturn%3Fcontract_id%3D…

# 4. KYC: the worker opens connect_url and completes onboarding (here without a browser).
curl -s -X POST -H 'accept: application/json' "$CONNECT" | jq -c .
# {"outcome":"applied","account_id":"acct_sandbox_…","verified":true}
get $CLIENT $B/contracts/$CONTRACT | jq -c '{status, milestones: [.milestones[] | {title, amount_cents, status}]}'
# {"status":"active","milestones":[{"title":"Kick-off call","amount_cents":0,"status":"pending"},{"title":"Parser and tests","amount_cents":12000,"status":"pending"}]}

# 5. Fund both milestones: the zero one is funded at once; the other returns a client_secret.
M1=$(get $CLIENT $B/contracts/$CONTRACT | jq -r '.milestones[0].id')
M2=$(get $CLIENT $B/contracts/$CONTRACT | jq -r '.milestones[1].id')
post $CLIENT $B/contracts/$CONTRACT/milestones/$M1/fund | jq -c '{status: .milestone.status, client_secret}'
# {"status":"funded","client_secret":null}
FUND=$(post $CLIENT $B/contracts/$CONTRACT/milestones/$M2/fund)
echo "$FUND" | jq -c '{status: .milestone.status, payment_id, payment_page_url}'
# {"status":"funding","payment_id":"pi_sandbox_…","payment_page_url":"http://localhost:…/sandbox/pay/pi_sandbox_…"}

# 6. Pay on the sandbox's pay page (with Stripe: Stripe.js, then the payment_intent.succeeded webhook).
curl -s "$(echo "$FUND" | jq -r .payment_page_url)" -H 'content-type: application/json' \
  -d "{\"client_secret\":\"$(echo "$FUND" | jq -r .client_secret)\"}" | jq -c .
# {"outcome":"applied","payment":"succeeded"}
