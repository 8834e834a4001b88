/**
 * Reads schemas of the served OpenAPI documents, whose named schemas are `$ref`s into `components.schemas`:
 * `deref(doc, schema)` gives the schema with every reference replaced by what it names (a copy).
 */
export function deref(doc: any, schema: any): any {
  if (Array.isArray(schema)) return schema.map((s) => deref(doc, s));
  if (!schema || typeof schema !== 'object') return schema;
  if (typeof schema.$ref === 'string') {
    const [, , kind, name] = schema.$ref.split('/');
    const { $ref: _ref, ...siblings } = schema;
    return { ...deref(doc, doc.components[kind][name]), ...siblings };
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, deref(doc, v)]));
}
