// Fastify compiles every route's JSON schemas, ajv validators and fast-json-stringify serializers, when the app
// becomes ready: 0.4 s of a 1 s start on a slow machine (docs/benchmarks-history.md, "Start to ready"), for routes most of
// which a process may never serve, and the same again for every app a test builds. These factories wrap Fastify's
// own (the same packages, the same options) and compile a route's schema on its first use instead.
//
// A schema that does not compile would then fail its route's first request rather than the start: `compileAll`
// compiles what is still pending, so that a test can prove every schema compiles (test/http/schemas-compile.test.ts).
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;

/** What Fastify calls its validators with, and reads `errors` from after a false answer. */
type Validator = ((data: unknown) => unknown) & { errors?: unknown };

export interface LazySchemaCompilers {
  /** Fastify's `schemaController.compilersFactory`. */
  readonly compilersFactory: { buildValidator: ValidatorFactory; buildSerializer: SerializerFactory };
  /** Compiles every schema not compiled yet (throwing as Fastify would at start); returns how many it compiled. */
  compileAll(): number;
}

export function lazySchemaCompilers(): LazySchemaCompilers {
  const buildValidator = AjvCompiler();
  const buildSerializer = SerializerSelector();
  const pending = new Set<() => void>();

  /** `compile` on first use, remembered; until then it waits in `pending`. */
  function once<T>(compile: () => T): () => T {
    let compiled: T | undefined;
    const get = (): T => {
      if (compiled === undefined) {
        compiled = compile();
        pending.delete(get);
      }
      return compiled;
    };
    pending.add(get);
    return get;
  }

  return {
    compilersFactory: {
      buildValidator: ((externalSchemas, options) => {
        const compiler = buildValidator(externalSchemas as never, options as never);
        return (route: Parameters<typeof compiler>[0]) => {
          const validator = once(() => compiler(route) as Validator);
          const lazy: Validator = (data) => {
            const validate = validator();
            const valid = validate(data);
            lazy.errors = validate.errors;
            return valid;
          };
          return lazy;
        };
      }) as ValidatorFactory,
      buildSerializer: ((externalSchemas, options) => {
        const compiler = buildSerializer(externalSchemas as never, options as never);
        return (route: Parameters<typeof compiler>[0]) => {
          const serializer = once(() => compiler(route));
          return (data: unknown) => serializer()(data);
        };
      }) as SerializerFactory,
    },
    compileAll() {
      const todo = [...pending];
      for (const compile of todo) compile();
      return todo.length;
    },
  };
}
