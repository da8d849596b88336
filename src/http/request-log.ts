import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';

const symbols = pino.symbols as unknown as Record<string, symbol>;
const sym = (name: string): symbol => symbols[name] ?? Symbol(name);
const LS_CACHE = sym('lsCacheSym');
const TIME = sym('timeSym');
const CHINDINGS = sym('chindingsSym');
const END = sym('endSym');
const STREAM = sym('streamSym');
const MIXIN = sym('mixinSym');
const FORMATTERS = sym('formattersSym');
const HOOKS = sym('hooksSym');
const MSG_PREFIX = sym('msgPrefixSym');

type Sink = { write(line: string): unknown };

/**
 * Writes the line pino itself would write for `info(fields, msg)`, built as a string: the same
 * level, time, bindings (the request id among them) and end, then the fields. Pino's generic
 * object serialization was the largest single step of a gateway request's own work in the
 * profiles (docs/bench-gateway.md, "Session 7"). False, writing nothing, for a logger this cannot
 * stand in for (not pino, or with a mixin, log formatter, hook or message prefix).
 */
function writePlainInfo(log: FastifyBaseLogger, fields: string, msg: string): boolean {
  const p = log as unknown as Record<symbol, unknown>;
  const stream = p[STREAM] as Sink | undefined;
  const time = p[TIME];
  const chindings = p[CHINDINGS];
  const end = p[END];
  const prefix = (p[LS_CACHE] as Record<number, string> | undefined)?.[30];
  if (typeof stream?.write !== 'function' || typeof time !== 'function' || typeof chindings !== 'string' || typeof end !== 'string' || prefix === undefined) return false;
  const formatters = p[FORMATTERS] as { log?: unknown } | undefined;
  const hooks = p[HOOKS] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  if (p[MIXIN] || formatters?.log || hooks?.logMethod || hooks?.streamWrite || p[MSG_PREFIX]) return false;
  stream.write(`${prefix}${(time as () => string)()}${chindings}${fields},"msg":${JSON.stringify(msg)}${end}`);
  return true;
}

/**
 * One log line per request, when its answer is complete: request id (the logger's binding),
 * method, url, client address, status and response time, as flat fields. Fastify's own logging
 * writes two lines (one on arrival) under `req` and `res` keys, which pino passes through the
 * redaction of credential headers, copying them (some 7 KB of garbage per request). No header is
 * logged here, so nothing needs redacting. Fastify's other lines (errors, streams that failed
 * after their headers) are kept.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const log = request.log;
    const remoteAddress = request.raw.socket?.remoteAddress;
    if (!error && (log as unknown as { isLevelEnabled?: (l: string) => boolean }).isLevelEnabled?.('info')) {
      const fields =
        `,"method":${JSON.stringify(request.method)},"url":${JSON.stringify(request.url)}` +
        (remoteAddress === undefined ? '' : `,"remoteAddress":${JSON.stringify(remoteAddress)}`) +
        `,"statusCode":${reply.statusCode},"responseTime":${JSON.stringify(reply.elapsedTime)}`;
      if (writePlainInfo(log, fields, 'request completed')) return;
    }
    const line = { method: request.method, url: request.url, remoteAddress, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) log.error({ ...line, err: error }, 'request errored');
    else log.info(line, 'request completed');
  }
}
