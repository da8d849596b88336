import { createMessagesStreamEncoder } from '../src/inference/formats/anthropic-messages/create-messages-stream-encoder.ts';
import { createChatStreamEncoder } from '../src/inference/formats/openai-chat/create-chat-chunk-formatter.ts';
import type { StreamEncoder } from '../src/inference/formats/stream-encoder.ts';
import { randomBytes } from 'node:crypto';
import { createReasoningSealers } from '../src/inference/reasoning-sealer.ts';
import { createAnthropicStreamParser } from '../src/inference/providers/anthropic/parse-anthropic-stream.ts';
import { createOpenAIChatStreamParser } from '../src/inference/providers/openai-compatible/parse-openai-chat-stream.ts';
import type { ProviderStreamParser } from '../src/inference/providers/provider-stream.ts';
import { ProviderEventBatches } from '../src/inference/upstream/read-provider-events.ts';
import { startBatchedChatStream } from '../src/inference/upstream/start-chat-stream.ts';
import { startInstantUpstream } from './lib/instant-upstream.ts';

/**
 * The gateway's per-stream work between the upstream's bytes and the client's, without a network
 * or a database (`npx tsx bench/stream-path.ts`): the bench upstream's 100-chunk stream, read as
 * one buffer (as the gateway's upstream read gets it), parsed, and encoded, for the gateway's
 * streamed targets: (c) chat completions from the chat completions stream, (e) messages translated
 * from that same stream, (f) messages from the upstream's Messages stream. Prints CPU µs per stream
 * for each, in the same process (so their ratios hold on a busy machine). Each stream is followed
 * by a turn of the event loop, as in the server: run back to back in one turn, streams keep each
 * other's garbage alive until the loop turns and the figures become mostly garbage collection.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000);
// BENCH_CHUNKS=2 leaves mostly a stream's fixed work (its first, finish and usage events, the objects made per stream).
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 100);

const up = await startInstantUpstream(CHUNKS);
const read = async (path: string) => Buffer.from(await (await fetch(`${up.url}${path}`, { method: 'POST', body: '{"stream":true}' })).arrayBuffer());
const chatBytes = await read('/v1/chat/completions');
const messagesBytes = await read('/v1/messages');
await up.close();

const identity = { id: 'chatcmpl-0123456789abcdefghij', model: 'svc-fast', created: 1700000000 };
const sealer = createReasoningSealers(randomBytes(32))(1);
const messagesIdentity = { ...identity, id: 'msg_0123456789abcdefghij' };
interface Case {
  readonly upstream: Buffer;
  parser(): ProviderStreamParser;
  encoder(): StreamEncoder;
}
const cases: Record<string, Case> = {
  '(c) chat': { upstream: chatBytes, parser: () => createOpenAIChatStreamParser(), encoder: () => createChatStreamEncoder({ ...identity, includeUsage: false, sealer }) },
  '(e) messages': { upstream: chatBytes, parser: () => createOpenAIChatStreamParser(), encoder: () => createMessagesStreamEncoder(messagesIdentity, sealer) },
  '(f) messages': { upstream: messagesBytes, parser: () => createAnthropicStreamParser(null), encoder: () => createMessagesStreamEncoder(messagesIdentity, sealer) },
};

// BENCH_READS=event: each upstream event a read of its own, as a model streaming its answer gives
// them (by default the whole stream is one read, as the bench upstream's is).
const perEvent = process.env.BENCH_READS === 'event';
const splits = new Map<Buffer, Buffer[]>();
function split(b: Buffer): Buffer[] {
  if (!perEvent) return [b];
  let out = splits.get(b);
  if (!out) {
    out = b.toString('latin1').split(/(?<=\n\n)/).map((t) => Buffer.from(t, 'latin1'));
    splits.set(b, out);
  }
  return out;
}

async function one(c: Case): Promise<number> {
  const encoder = c.encoder();
  // The whole upstream stream as one read (or an event a read), as a body the transport gives (no network here).
  const pieces = split(c.upstream);
  let next = 0;
  const body = {
    read: async () => (next < pieces.length ? pieces[next++]! : null),
    release: () => {},
    destroy: () => {},
  };
  const stream = await startBatchedChatStream(new ProviderEventBatches(body, c.parser(), undefined, { textRuns: true }), { estimateInput: () => 12, mapError: (e) => e });
  let out = encoder.start();
  // As serve-chat-turn.ts: text runs for an encoder that takes them.
  const batches = encoder.encodeRun ? stream.batches({ textRuns: true }) : stream.batches();
  for await (const parts of batches) for (const part of parts) out += part.type === 'text-run' ? encoder.encodeRun!(part.run) : encoder.encode(part);
  out += encoder.end();
  // The server writes the text to its socket as UTF-8.
  return Buffer.byteLength(out);
}

// BENCH_CASES=c,e narrows the run (e.g. for --cpu-prof).
const only = (process.env.BENCH_CASES ?? '').split(',').filter(Boolean);
for (const round of ['warm-up', 'measured']) {
  for (const [name, c] of Object.entries(cases)) {
    if (only.length > 0 && !only.includes(name[1]!)) continue;
    const n = round === 'warm-up' ? ROUNDS / 3 : ROUNDS;
    const t0 = process.cpuUsage();
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      bytes += await one(c);
      await new Promise(setImmediate);
    }
    const t = process.cpuUsage(t0);
    if (round === 'measured') console.log(`${name.padEnd(13)} ${((t.user + t.system) / n).toFixed(1).padStart(7)} µs CPU per ${CHUNKS}-chunk stream, ${(bytes / n).toFixed(0)} bytes out`);
  }
}
