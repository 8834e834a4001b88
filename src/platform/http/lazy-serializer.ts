import { createRequire } from 'node:module';

/**
 * Response serializers compiled on a route's first answer instead of at start. Fastify compiles a fast-json-stringify
 * function for every response schema of every route when the server starts (about 150 here: the API, the console, the
 * dashboard), and V8 keeps each one's generated source (3.6 MB of strings) and code in the heap for good, though a
 * deployment answers on only a few of those routes and most never. Here the same compiler (Fastify's own default, with
 * the same shared schemas and options) runs the first time a route's answer is serialized, once per route and status;
 * the answers are byte for byte the same. A schema that fast-json-stringify cannot compile fails that route's first
 * answer rather than the start (`npm test` answers on every route's schemas).
 */
type RouteSchema = { schema: unknown; method: string; url: string; httpStatus: string; contentType?: string };
type Serializer = (data: unknown) => string;
type BuildSerializer = (externalSchemas: unknown, serializerOpts: unknown) => (route: RouteSchema) => Serializer;

let compiled = 0;
/** How many response serializers have been compiled in this process so far (the lazy-serializer test reads it). */
export const compiledSerializers = (): number => compiled;

/** Fastify's `schemaController.compilersFactory.buildSerializer`, compiling each route's serializer on first use. */
export function lazySerializerBuilder(): BuildSerializer {
  // Fastify's default compiler, resolved from Fastify's own dependencies (as Fastify loads it), not a dependency of ours.
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const SerializerSelector = fromFastify('@fastify/fast-json-stringify-compiler') as () => BuildSerializer;
  const build = SerializerSelector();
  return (externalSchemas, serializerOpts) => {
    const compile = build(externalSchemas, serializerOpts);
    return (route) => {
      let serialize: Serializer | undefined;
      return (data) => {
        if (!serialize) {
          serialize = compile(route);
          compiled++;
        }
        return serialize(data);
      };
    };
  };
}
