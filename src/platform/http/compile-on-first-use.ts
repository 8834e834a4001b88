import { createRequire } from 'node:module';
import type { FastifySchemaCompiler } from 'fastify';
import type { ValidateFunction } from 'ajv';

/**
 * Schema compilers that compile a route's validator or response serializer when a request first needs it, not when
 * the app starts. Only the tests ask for them (buildApp's `compileOnFirstUse`): a test file builds a whole app and
 * runs a handful of its routes, and compiling every route's schemas at start cost each file about a second of CPU
 * (issue 43). Production compiles everything at start, so a schema that cannot compile stops the service there; the
 * tests that start the real service (bin/commerce.js) and the ones that call buildApp themselves keep that path.
 * What a compiled function does is the same either way.
 */
export function validatorOnFirstUse(compile: FastifySchemaCompiler<any>): FastifySchemaCompiler<any> {
  return (route) => {
    let fn: ValidateFunction | undefined;
    const lazy = ((data: unknown) => {
      fn ??= compile(route) as ValidateFunction;
      const ok = fn(data);
      lazy.errors = fn.errors;
      return ok;
    }) as ValidateFunction;
    return lazy;
  };
}

type SerializerCompiler = (route: { schema: unknown; method: string; url: string; httpStatus: string; contentType?: string }) => (data: unknown) => string;
type SerializerBuilder = (externalSchemas: unknown, serializerOpts: unknown) => SerializerCompiler;

/**
 * Fastify's own serializer builder (fast-json-stringify, as Fastify loads it when none is given), wrapped so each
 * route's serializer is compiled on its first answer. For `Fastify({ schemaController: { compilersFactory } })`.
 */
export function serializerBuilderOnFirstUse(): SerializerBuilder {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const SerializerSelector = fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerBuilder;
  const build = SerializerSelector();
  return (externalSchemas, serializerOpts) => {
    const compile = build(externalSchemas, serializerOpts);
    return (route) => {
      let fn: ((data: unknown) => string) | undefined;
      return (data) => (fn ??= compile(route))(data);
    };
  };
}
