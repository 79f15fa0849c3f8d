#!/usr/bin/env bash
# The walkthrough of docs/guide/keys.md. From the repository root, after `npm ci`: bash docs/guide/keys.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

# The first start creates the database, saying so in its log (one JSON line each).
start_server
jq -r .msg "$WORK/server.log" | sed -n 1,4p
# creating the embedded database in …/data from its prepared template (first start)…
# starting the job system…
# no metrics endpoint: set METRICS_PORT or METRICS_TOKEN to serve /metrics
# Server listening at …
curl -s localhost:$PORT/api/health | jq -c .
# {"status":"ok","database":"ok","jobs":"ok"}

# On PGlite one process at a time opens the database: stop the server before the CLI.
stop_server
ALICE=$(npm run -s cli -- create-user Alice --json)
echo "$ALICE"
# {"user_id":"…","api_key":"gm_live_…"}
KEY=$(echo "$ALICE" | jq -r .api_key)
start_server
curl -s -H "Authorization: Bearer $KEY" localhost:$PORT/api/keys/verify | jq -c .
# {"user_id":"…","hosted_agent_id":null,"api_key_id":"…"}
curl -s -H "x-api-key: $KEY" localhost:$PORT/api/keys/verify | jq -c .
# {"user_id":"…","hosted_agent_id":null,"api_key_id":"…"}

# A wrong key, or two different keys in one request, is 401 whichever of them is valid.
curl -s -o /dev/null -w '%{http_code}\n' -H "x-api-key: gm_live_wrong" localhost:$PORT/api/keys/verify
# 401
curl -s -o /dev/null -w '%{http_code}\n' -H "x-api-key: gm_live_wrong" -H "Authorization: Bearer $KEY" localhost:$PORT/api/keys/verify
# 401
