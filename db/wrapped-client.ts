// What db/unpipelined.ts and db/traced.ts share: a database client seen through a Proxy that puts
// their own versions of the few methods Drizzle's drivers run SQL with in place of the client's,
// and the pending query their `unsafe` returns in place of postgres.js's.

/**
 * `client` with `replaced` in place of its methods of those names, its other properties its own
 * (methods bound to it: a proxy is not the object their private fields live on). `wrapper` names
 * the wrapper in the error a call of the client itself (postgres.js's tagged template) throws: that
 * would run SQL past the replaced methods, and nothing here calls the client so.
 */
export function replacing<C extends object>(client: C, replaced: Record<string, unknown>, wrapper: string): C {
  return new Proxy(client, {
    get(target, key) {
      if (typeof key === 'string' && Object.hasOwn(replaced, key)) return replaced[key];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    apply() {
      throw new Error(`${wrapper}: a tagged template (sql\`…\`) would bypass this wrapper; run SQL through Drizzle or unsafe()`);
    },
  });
}

/**
 * What `unsafe` returns here: what Drizzle's postgres.js driver does with a pending query is await
 * it, or ask for `.values()` (rows as arrays) and await that. As postgres.js's own, it is sent once,
 * when first asked for (`send(true)` for `.values()`), however often it is awaited.
 */
export function pendingQuery<T>(send: (values: boolean) => Promise<T>) {
  let sent: Promise<T> | undefined;
  const once = (values: boolean) => {
    sent ??= send(values);
    return sent;
  };
  return {
    values: () => once(true),
    // biome-ignore lint/suspicious/noThenProperty: awaited as postgres.js's own pending query is
    then: <R1 = T, R2 = never>(ok?: (rows: T) => R1 | PromiseLike<R1>, failed?: (err: unknown) => R2 | PromiseLike<R2>) =>
      once(false).then(ok, failed),
  };
}
