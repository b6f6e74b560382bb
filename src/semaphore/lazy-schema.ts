// A schema built the first time it is used rather than when its module loads. The protocol has some
// forty schemas; a run of the action uses a handful, and builds none of them before its first request,
// so building them all at start-up was a measurable part of its cold start (bench/README.md).
//
// The stand-in is a Proxy that forwards every operation to the schema once built, so callers, zod
// (which reads `_zod` of a schema nested in another) and `instanceof` (zod's checks read the same
// `_zod`) see the schema itself. Types are the built schema's: `z.infer<typeof schema>` is unchanged.

export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    built ??= build();
    return built;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key, schema()),
    set: (_, key, value) => Reflect.set(schema(), key, value, schema()),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // Reported as configurable: a Proxy may not claim a fixed property its own (empty) target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
