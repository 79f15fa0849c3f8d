// A pending query, as postgres.js's client and the wrappers around it (db/wrapped-client.ts) return
// one from `unsafe`, is sent when first awaited: asked for its rows again, it answers the same.

/** Its answers asked three times: awaited twice, then through `.then`. */
export async function askedThrice<T>(query: PromiseLike<T>): Promise<T[]> {
  return [await query, await query, await new Promise<T>((ok, failed) => query.then(ok, failed))];
}
