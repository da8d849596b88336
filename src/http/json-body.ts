import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../shared/errors.ts';

type Done = (err: Error | null, body?: unknown) => void;
export type JsonBodyParser = (request: FastifyRequest, body: string | Buffer, done: Done) => void;

/**
 * The first key that could set an object's prototype once the parsed body is merged or copied:
 * a `__proto__` field, or a `constructor` object holding `prototype` (what Fastify's parser
 * refuses). Its path as the validation messages write one (`metadata.__proto__`); null when none.
 */
export function forbiddenKeyPath(value: unknown, path = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = forbiddenKeyPath(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  const join = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (Object.prototype.hasOwnProperty.call(value, '__proto__')) return join('__proto__');
  const ctor = (value as { constructor?: unknown }).constructor;
  if (Object.prototype.hasOwnProperty.call(value, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.prototype.hasOwnProperty.call(ctor, 'prototype')) {
    return join('constructor.prototype');
  }
  for (const [key, v] of Object.entries(value)) {
    const p = forbiddenKeyPath(v, join(key));
    if (p) return p;
  }
  return null;
}

/** The 400 for a body with such a key: where it is and why it is refused. */
export function forbiddenKeyMessage(path: string): string {
  return `forbidden field name: ${path} (__proto__ and constructor.prototype are refused: they could change an object's prototype)`;
}

/**
 * Fastify's JSON parser (prototype poisoning refused), whose refusal of a poisoned body names the
 * key instead of calling well-formed JSON malformed: the parser's error carries no mark of which
 * it was, so a failed parse is parsed again with plain JSON.parse (which keeps `__proto__` as an
 * ordinary own field) and walked. Only a refused body pays for that; a good one is parsed once.
 */
export function namedJsonParser(app: FastifyInstance): JsonBodyParser {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    parse(request, body as string, (err, parsed) => {
      if (!err) return done(null, parsed);
      let path: string | null;
      try {
        path = forbiddenKeyPath(JSON.parse(typeof body === 'string' ? body : body.toString('utf8')));
      } catch {
        // Malformed after all, or nested past the stack's depth: the parser's own answer stands.
        return done(err);
      }
      done(path === null ? err : badRequest(forbiddenKeyMessage(path)));
    });
  };
}

/** Replaces the default application/json parser of `app` (and the contexts it registers) with namedJsonParser. */
export function installJsonBodyParser(app: FastifyInstance): void {
  const parser = namedJsonParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parser);
}
