import { createMessagesStreamEncoder } from '../src/inference/formats/anthropic-messages/create-messages-stream-encoder.ts';
import { createChatStreamEncoder } from '../src/inference/formats/openai-chat/create-chat-chunk-formatter.ts';
import type { StreamEncoder } from '../src/inference/formats/stream-encoder.ts';
import { Readable } from 'node:stream';
import { createOpenAIChatStreamParser } from '../src/inference/providers/openai-compatible/parse-openai-chat-stream.ts';
import { readProviderEvents } from '../src/inference/upstream/read-provider-events.ts';
import { startBatchedChatStream } from '../src/inference/upstream/start-chat-stream.ts';
import { startInstantUpstream } from './lib/instant-upstream.ts';

/**
 * The gateway's per-stream work between the upstream's bytes and the client's, without a network
 * or a database (`npx tsx bench/stream-path.ts`): the bench upstream's 100-chunk stream, read
 * as one buffer (as the gateway's upstream read gets it), parsed, and encoded for chat completions and for messages. Prints CPU µs per
 * stream for each, in the same process (so their ratio holds on a busy machine).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3000);

const up = await startInstantUpstream(100);
const res = await fetch(`${up.url}/v1/chat/completions`, { method: 'POST', body: '{"stream":true}' });
const upstreamBytes = Buffer.from(await res.arrayBuffer());
await up.close();

const identity = { id: 'chatcmpl-0123456789abcdefghij', model: 'svc-fast', created: 1700000000 };
const cases: Record<string, () => StreamEncoder> = {
  chat: () => createChatStreamEncoder({ ...identity, includeUsage: false }),
  messages: () => createMessagesStreamEncoder({ ...identity, id: 'msg_0123456789abcdefghij' }),
};

async function one(encoder: StreamEncoder): Promise<number> {
  const body = Readable.from([upstreamBytes], { objectMode: false });
  const stream = await startBatchedChatStream(readProviderEvents(body, createOpenAIChatStreamParser(), undefined), { estimateInput: () => 12, mapError: (e) => e });
  let out = encoder.start();
  for await (const parts of stream.batches()) for (const part of parts) out += encoder.encode(part);
  out += encoder.end();
  return out.length;
}

for (const round of ['warm-up', 'measured']) {
  for (const [name, make] of Object.entries(cases)) {
    const n = round === 'warm-up' ? ROUNDS / 3 : ROUNDS;
    const t0 = process.cpuUsage();
    let bytes = 0;
    for (let i = 0; i < n; i++) bytes += await one(make());
    const t = process.cpuUsage(t0);
    if (round === 'measured') console.log(`${name.padEnd(9)} ${((t.user + t.system) / n).toFixed(1).padStart(7)} µs CPU per 100-chunk stream, ${(bytes / n).toFixed(0)} bytes out`);
  }
}
