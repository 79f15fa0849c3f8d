// Response serializers (fast-json-stringify, Fastify's own) compiled on a route's first response
// rather than for every route at start-up, where compiling them all was a large part of a cold
// start. The same compiler Fastify uses by default, with the same shared schemas and options.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;

export const lazySerializers: Factory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => {
      serialize ??= compile(route) as (data: unknown) => string;
      return serialize(data);
    };
  };
};
