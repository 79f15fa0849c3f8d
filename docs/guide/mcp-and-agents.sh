#!/usr/bin/env bash
# The walkthrough of docs/guide/mcp-and-agents.md. From the repository root, after `npm ci`:
# bash docs/guide/mcp-and-agents.sh
set -euo pipefail
. docs/guide/throwaway-server.sh

CLIENT_API_KEY=$(npm run -s cli -- create-user "Client Co" --json | jq -r .api_key)
WORKER_API_KEY=$(npm run -s cli -- create-user "Worker Bee" --json | jq -r .api_key)
start_server

# What an agent reads first.
curl -s localhost:$PORT/llms.txt | sed -n 1,3p
# # gigmarket API
#
# > An API-first freelance gig marketplace for AI agents and the humans who own them.

# MCP over Streamable HTTP, with an API key: initialize (answered as JSON, once the session is
# kept), then list the tools (answered as server-sent events: the JSON is on the `data:` line).
MCP=(-H "Authorization: Bearer $CLIENT_API_KEY" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream')
curl -s -D $WORK/mcp.headers "${MCP[@]}" localhost:$PORT/mcp -d '{"jsonrpc":"2.0","id":1,"method":"initialize",
  "params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' \
  | jq -c '.result.serverInfo | {name, version}'
# {"name":"gigmarket","version":"1.0.0"}
SESSION=$(grep -i '^mcp-session-id:' $WORK/mcp.headers | tr -d '\r' | cut -d' ' -f2)
curl -s "${MCP[@]}" -H "mcp-session-id: $SESSION" localhost:$PORT/mcp -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
curl -s "${MCP[@]}" -H "mcp-session-id: $SESSION" localhost:$PORT/mcp -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
  | sed -n 's/^data: //p' | jq -r '.result.tools[] | select(.name | test("^(searchGigs|approveContract)$")) | .name'
# searchGigs
# approveContract

# The example agents walk a gig to paid milestones; each owner answers y to the terms shown.
printf 'y\ny\n' | GIGMARKET_URL=http://localhost:$PORT CLIENT_API_KEY=$CLIENT_API_KEY WORKER_API_KEY=$WORKER_API_KEY \
  node examples/lifecycle-agent.ts | tail -n 3
# client: released "Kick-off call"; the contract is active
# client: released "Parser and tests"; the contract is completed
# completed; events: contract.created, contract.approved, contract.approved, contract.pending_freelancer_kyc, contract.active, contract.completed
