#!/usr/bin/env bash
# The walkthrough of docs/guide/clients.md: the five generators `npm run check:sdks` proves, each
# writing a client from openapi.yaml. From the repository root, after `npm ci`: bash docs/guide/clients.sh
set -euo pipefail
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# openapi-typescript: types for openapi-fetch (what the dashboard, the tests and the example agent use).
npx openapi-typescript openapi.yaml -o $OUT/openapi-typescript/api.ts > /dev/null

# @hey-api/openapi-ts: an SDK of functions named by operationId, on its fetch client.
npx @hey-api/openapi-ts -i openapi.yaml -o $OUT/hey-api -c @hey-api/client-fetch --no-log-file > /dev/null

# orval: takes the base URL from the spec's first server only through a configuration file.
cat > $OUT/orval.config.mjs <<CONFIG
export default { gigmarket: { input: { target: '$PWD/openapi.yaml' }, output: { target: '$OUT/orval/api.ts',
  client: 'fetch', mode: 'single', baseUrl: { getBaseUrlFromSpecification: true } } } };
CONFIG
npx orval --config $OUT/orval.config.mjs > /dev/null

# typed-openapi: one file, its output path relative to the working directory.
npx typed-openapi openapi.yaml -o $(realpath --relative-to=. $OUT)/typed-openapi/api.ts > /dev/null

# openapi-zod-client: zod schemas of every component, without the client (its default template needs
# @zodios/core and axios); it writes for zod 3, which zod 4 still ships as zod/v3.
mkdir -p $OUT/openapi-zod-client && npx openapi-zod-client openapi.yaml -o $OUT/openapi-zod-client/schemas.ts \
  -t node_modules/openapi-zod-client/src/templates/schemas-only.hbs --export-schemas > /dev/null
sed -i 's/from "zod";/from "zod\/v3";/' $OUT/openapi-zod-client/schemas.ts

(cd $OUT && ls */api.ts */index.ts */schemas.ts)
# hey-api/index.ts
# openapi-typescript/api.ts
# openapi-zod-client/schemas.ts
# orval/api.ts
# typed-openapi/api.ts
