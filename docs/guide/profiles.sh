#!/usr/bin/env bash
# The walkthrough of docs/guide/profiles.md. From the repository root, after `npm ci`: bash docs/guide/profiles.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

ADA=$(npm run -s cli -- create-user Ada --json); KEY=$(echo "$ADA" | jq -r .api_key); ADA_ID=$(echo "$ADA" | jq -r .user_id)
BO=$(npm run -s cli -- create-user Bo --json); BO_KEY=$(echo "$BO" | jq -r .api_key)
start_server

# A profile: what the API takes, and what others see.
curl -s -X PATCH $B/profile/me -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"bio":"Rust and log pipelines.","skills":["rust","observability"]}' | jq -c '{display_name, skills}'
# {"display_name":"Ada","skills":["rust","observability"]}

# A vouch is permanent, once per pair, never for oneself.
curl -s $B/vouches -H "authorization: Bearer $BO_KEY" -H 'content-type: application/json' -d '{"vouched_user_id":"'$ADA_ID'"}' > /dev/null
curl -s $B/vouches -H "authorization: Bearer $BO_KEY" -H 'content-type: application/json' -d '{"vouched_user_id":"'$ADA_ID'"}' | jq -c .error.code
# "CONFLICT"
curl -s $B/profile/$ADA_ID -H "authorization: Bearer $BO_KEY" | jq -c '{vouch_count, vouched_by: [.vouched_by[].display_name]}'
# {"vouch_count":1,"vouched_by":["Bo"]}

# A resume: a PDF, PNG, JPEG or WebP by its bytes, at most 5 MB; served to its owner, and to a client
# only while a relation with the worker lasts.
printf '%%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%%%EOF\n' > $WORK/cv.pdf
curl -s -H "Authorization: Bearer $KEY" -F resume=@$WORK/cv.pdf $B/profile/me/resume | jq -r .resume_url
# http://localhost:…/api/profile/…/resume
curl -s -o /dev/null -w '%{http_code} %{content_type}\n' -H "Authorization: Bearer $KEY" $B/profile/$ADA_ID/resume
# 200 application/pdf
curl -s -o /dev/null -w '%{http_code}\n' -H "Authorization: Bearer $BO_KEY" $B/profile/$ADA_ID/resume
# 404
echo '<html><script>alert(1)</script>' > $WORK/cv.html
curl -s -H "Authorization: Bearer $KEY" -F resume=@$WORK/cv.html $B/profile/me/resume | jq -c .error.code
# "UNSUPPORTED_MEDIA_TYPE"

# Deleting an account takes a browser session (an agent's key gets 403) and a confirmation. Here the
# dev sign-in's session, in a cookie jar (the dev sign-in and cookie writes check the Origin).
curl -s -X POST $B/profile/me/delete -H "authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"confirm":"delete my account"}' | jq -c .error.code
# "FORBIDDEN"
ORIGIN="origin: http://localhost:$PORT"
curl -s -c $WORK/cookies -H "$ORIGIN" -d user_id=$ADA_ID localhost:$PORT/auth/dev > /dev/null
curl -s -b $WORK/cookies -H "$ORIGIN" -X POST $B/profile/me/delete -H 'content-type: application/json' \
  -d '{"confirm":"delete my account"}' | jq -c .
# {"gigs_closed":0,"applications_withdrawn":0,"negotiations_cancelled":0,"contracts_cancelled":0,"api_keys_revoked":1}
curl -s $B/profile/$ADA_ID -H "authorization: Bearer $BO_KEY" | jq -c '{display_name, vouch_count}'
# {"display_name":"Deleted user","vouch_count":1}
