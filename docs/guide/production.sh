#!/usr/bin/env bash
# The walkthrough of docs/guide/production.md: a server Postgres, and what the server refuses at
# start. Needs a Postgres on 127.0.0.1:5432 that lets the user postgres in (CI has one; without it the
# walkthrough is skipped, exit 77). From the repository root, after `npm ci`: bash docs/guide/production.sh
set -euo pipefail
. docs/guide/throwaway-server.sh
pg_isready -q -h 127.0.0.1 -p 5432 || { echo "skipped: no Postgres on 127.0.0.1:5432"; exit 77; }

# The database must exist: the server creates the tables, not the database.
DB=gigmarket_guide_$$
createdb -h 127.0.0.1 -U postgres $DB
trap 'cleanup; dropdb -h 127.0.0.1 -U postgres --if-exists $DB' EXIT
export DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB
npm run -s db:migrate   # optional: the server also applies migrations at start
# migrations applied (postgres)
start_server
curl -s localhost:$PORT/api/health | jq -c .
# {"status":"ok","database":"ok","jobs":"ok"}

# On a server Postgres the CLI runs beside the server.
npm run -s cli -- create-user Ada --json | jq -c 'keys'
# ["api_key","user_id"]
stop_server

# Settings that are unsafe together stop the server at start, saying why: here the dev sign-in
# (on without GitHub sign-in, outside production) beside a PUBLIC_URL that is not this machine.
PUBLIC_URL=https://gigs.example.com node dist/server.js 2>&1 | grep '^Error:' || true
# Error: PUBLIC_URL (https://gigs.example.com) is not this machine, and the dev sign-in (anyone who reaches /auth/dev becomes any user) is on: configure GitHub sign-in (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET) or set NODE_ENV=production; on a private test network only, DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE=true starts it anyway

# In production the dev sign-in is gone, and TRUST_PROXY=true (every X-Forwarded-For entry believed)
# is warned about at every start: set the number of proxies instead (TRUST_PROXY=1 for one nginx).
NODE_ENV=production PUBLIC_URL=https://gigs.example.com TRUST_PROXY=true start_server
curl -s -o /dev/null -w '%{http_code}\n' localhost:$PORT/auth/dev
# 404
jq -r 'select(.level == 40) | .msg' "$WORK/server.log" | cut -d: -f1
# TRUST_PROXY=true believes every X-Forwarded-For entry
