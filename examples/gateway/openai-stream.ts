// A streamed chat completion with the official OpenAI SDK: text as it comes, then the usage.
// Run: SVC_KEY=svk_... npx tsx examples/gateway/openai-stream.ts
import OpenAI from 'openai';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const apiKey = process.env.SVC_KEY;
if (!apiKey) throw new Error('Set SVC_KEY to an svk_ key: npm run admin -- keys create <account id>');

const client = new OpenAI({ apiKey, baseURL: `${url}/v1` });
const stream = await client.chat.completions.create({
  model: 'svc-fast',
  messages: [{ role: 'user', content: 'Write a haiku about pools' }],
  stream: true,
  stream_options: { include_usage: true },
});
for await (const chunk of stream) {
  process.stdout.write(chunk.choices[0]?.delta?.content ?? '');
  if (chunk.usage) console.log('\nusage:', chunk.usage);
}
