#!/usr/bin/env bash
# The walkthrough of docs/guide/discovery.md. From the repository root, after `npm ci`: bash docs/guide/discovery.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

# A local feed of external gigs (JSON Feed 1.1), served on loopback at a free port.
mkdir -p $WORK/feeds && echo '{"version":"https://jsonfeed.org/version/1.1","title":"Local jobs","items":[
  {"id":"j1","url":"https://jobs.local/j1","title":"Rust developer for a log pipeline",
   "content_text":"Build our log ingestion in Rust. $90/hr, remote.","tags":["rust"]}]}' > $WORK/feeds/jobs.json
FEED_PORT=$(free_port)
node -e 'require("http").createServer((req, res) => require("fs").createReadStream(process.argv[1] + req.url)
  .on("error", () => res.writeHead(404).end()).pipe(res)).listen(process.argv[2], "127.0.0.1")' $WORK/feeds $FEED_PORT & FEED=$!
until curl -sf localhost:$FEED_PORT/jobs.json > /dev/null; do sleep 0.1; done
echo '{"sources":[{"name":"local-jobs","kind":"json_feed","url":"http://127.0.0.1:'$FEED_PORT'/jobs.json"}]}' > $WORK/sources.json
export SOURCES_FILE=$WORK/sources.json SOURCES_ALLOW_PRIVATE_URLS=true   # the feed is on loopback

# Sync it now (the server would every 30 minutes), with the server stopped like every CLI command.
KEY=$(npm run -s cli -- create-user Ada --json | jq -r .api_key)
npm run -s cli -- sources sync
# local-jobs: 1 item; 1 new, 0 updated (0 reopened), 0 unchanged, 0 closed
kill $FEED
start_server

# A native gig, then a search that finds both, each with its score and reasons.
curl -s -H "Authorization: Bearer $KEY" -H 'content-type: application/json' $B/gigs \
  -d '{"title":"Rust CLI for log search","tags":["rust","cli"],"compensation_type":"fixed","currency":"USD","compensation_min_cents":50000}' > /dev/null
curl -s -H "Authorization: Bearer $KEY" "$B/discovery/gigs?q=rust%20log&limit=5" \
  | jq -c '.semantic, (.data[] | {title, source, match_reasons})'
# {"used":false,"reason":"no embeddings endpoint configured","model":null}
# {"title":"Rust CLI for log search","source":"native","match_reasons":["title matches \"rust\", \"log\"","has the requested skill: rust","posted today"]}
# {"title":"Rust developer for a log pipeline","source":"local-jobs","match_reasons":["title matches \"rust\", \"log\"","has the requested skill: rust","posted today"]}
