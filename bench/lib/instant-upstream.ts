import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible upstream that answers at once: a fixed chat completion, or a stream of
 * `chunks` content chunks followed by a usage chunk and [DONE]. On `.../messages` it is an
 * Anthropic one: the same text as a message, or as a Messages stream of `chunks` text deltas.
 */
export async function startInstantUpstream(chunks = 100): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const completion = JSON.stringify({
    id: 'chatcmpl-upstream',
    object: 'chat.completion',
    created: 1700000000,
    model: 'upstream-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the bench.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } },
  });
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-upstream',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'upstream-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  const stream =
    chunk({ role: 'assistant', content: '' }, null) +
    Array.from({ length: chunks }, (_, i) => chunk({ content: `tok${i} ` }, null)).join('') +
    chunk({}, 'stop') +
    `data: ${JSON.stringify({
      id: 'chatcmpl-upstream',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'upstream-model',
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: chunks, total_tokens: 12 + chunks },
    })}\n\n` +
    'data: [DONE]\n\n';

  const message = JSON.stringify({
    id: 'msg_upstream01',
    type: 'message',
    role: 'assistant',
    model: 'upstream-model',
    content: [{ type: 'text', text: 'Hello from the bench.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 5 },
  });
  const event = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  const messageStream =
    event('message_start', {
      message: { id: 'msg_upstream01', type: 'message', role: 'assistant', model: 'upstream-model', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
    }) +
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
    event('ping', {}) +
    Array.from({ length: chunks }, (_, i) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: `tok${i} ` } })).join('') +
    event('content_block_stop', { index: 0 }) +
    event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: chunks } }) +
    event('message_stop', {});

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const wantsStream = body.includes('"stream":true');
      if (req.url?.endsWith('/messages')) {
        res.writeHead(200, { 'content-type': wantsStream ? 'text/event-stream' : 'application/json' });
        res.end(wantsStream ? messageStream : message);
      } else if (wantsStream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.end(stream);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(completion);
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, close: () => new Promise((r) => server.close(() => r())) };
}
