/**
 * Lookups in tables keyed by outside input (a bank code from a form, a card company code or wallet name from a
 * gateway, a `?done=` key from a query string). A plain object literal inherits `toString`, `valueOf`,
 * `constructor`, `hasOwnProperty`, `__proto__` …, so `TABLE[input]` answers a function (or Object.prototype) for
 * those names: a refund bank code `toString` passed the check, the receipt printed
 * `function toString() { [native code] }` and the gateway was sent `"bank":"toString"`. Every such lookup goes
 * through these helpers, which only ever see the table's own keys.
 */

/** True when `key` is one of the table's own keys (never an inherited name such as `toString` or `__proto__`). */
export function isOwnKey<K extends string>(table: Readonly<Partial<Record<K, unknown>>>, key: unknown): key is K {
  return typeof key === 'string' && Object.hasOwn(table, key);
}

/** The table's value under its own key `key`, or undefined (also for every inherited name). */
export function ownValue<V>(table: Readonly<Partial<Record<string, V>>>, key: unknown): V | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}
