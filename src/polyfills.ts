// PostGraphile 5 / grafast call Promise.withResolvers (Node 22+). Node 20 lacks it: without this the
// schema builds but every query fails. Imported first by every entry point.
const P = Promise as unknown as { withResolvers?: unknown };
if (typeof P.withResolvers !== 'function') {
  P.withResolvers = function withResolvers<T>() {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
export {};
// Grafast reads GRAPHILE_ENV when first imported and warns when it is unset; we run it in production mode
// unless told otherwise (GRAPHILE_ENV=development adds checks while developing).
process.env.GRAPHILE_ENV ??= 'production';
