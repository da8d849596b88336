// A chat completion through the gateway with the official OpenAI SDK.
// Run: SVC_KEY=svk_... npx tsx examples/gateway/openai-chat.ts
import OpenAI from 'openai';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const apiKey = process.env.SVC_KEY;
if (!apiKey) throw new Error('Set SVC_KEY to an svk_ key: npm run admin -- keys create <account id>');

const client = new OpenAI({ apiKey, baseURL: `${url}/v1` });
const completion = await client.chat.completions.create({
  model: 'svc-fast',
  messages: [{ role: 'user', content: 'Say hi' }],
});
console.log(completion.choices[0]?.message.content);
console.log(completion.usage);
