// /v1/responses with the official OpenAI SDK: the service stores the conversation, so the second
// turn names the first by its id instead of sending it again.
// Run: SVC_KEY=svk_... npx tsx examples/gateway/openai-responses.ts
import OpenAI from 'openai';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const apiKey = process.env.SVC_KEY;
if (!apiKey) throw new Error('Set SVC_KEY to an svk_ key: npm run admin -- keys create <account id>');

const client = new OpenAI({ apiKey, baseURL: `${url}/v1` });
const first = await client.responses.create({ model: 'svc-fast', input: 'Pick a number from 1 to 10' });
console.log(first.output_text);
const next = await client.responses.create({
  model: 'svc-fast',
  previous_response_id: first.id, // kept by the service (30 days by default)
  input: 'Now double it',
});
console.log(next.output_text);
console.log(next.usage);
