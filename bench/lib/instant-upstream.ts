import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-compatible upstream that answers at once: a fixed chat completion, or a stream of
 * `chunks` content chunks followed by a usage chunk and [DONE].
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

  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const wantsStream = body.includes('"stream":true');
      if (wantsStream) {
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
