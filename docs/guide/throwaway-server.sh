# A throw-away gigmarket for a walkthrough: embedded PGlite in a new temporary folder, the sandbox
# payment provider, a free port. Each docs/guide/*.sh sources it (`. docs/guide/throwaway-server.sh`),
# and so can you, from the repository root after `npm ci`. `start_server` starts `node dist/server.js`
# (what `npm start` runs) and waits until it is healthy; `stop_server` stops it. When the shell that
# sourced this exits, `cleanup` stops the server and whatever else it started, and removes the
# folder. Sourced again in the same shell, it does nothing.
if ! declare -F start_server > /dev/null; then
  unset DATABASE_URL STRIPE_SECRET_KEY GITHUB_CLIENT_ID GITHUB_CLIENT_SECRET NODE_ENV
  WORK=$(mktemp -d)
  export DATA_DIR=$WORK/data
  free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'; }
  export PORT=$(free_port)
  B=http://localhost:$PORT/api
  SERVER=
  start_server() {
    node dist/server.js >> "$WORK/server.log" 2>&1 &
    SERVER=$!
    until curl -sf "localhost:$PORT/api/health" > /dev/null; do
      kill -0 "$SERVER" 2> /dev/null || { tail -n 20 "$WORK/server.log"; return 1; }
      sleep 0.5
    done
  }
  stop_server() {
    if [ -n "$SERVER" ]; then kill "$SERVER" && wait "$SERVER" || true; SERVER=; fi
  }
  # On exit: the server, then whatever else the walkthrough left running (a feed, a receiver), then the folder.
  cleanup() {
    stop_server
    kill $(jobs -p) 2> /dev/null || true
    rm -rf "$WORK"
  }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
fi
