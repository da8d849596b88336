// The Anthropic Messages protocol with the official Anthropic SDK, streamed. The SDK appends
// /v1/messages to its base URL and sends the key as x-api-key.
// Run: SVC_KEY=svk_... npx tsx examples/gateway/anthropic-messages.ts
import Anthropic from '@anthropic-ai/sdk';

const url = process.env.SVC_URL ?? 'http://localhost:8080';
const apiKey = process.env.SVC_KEY;
if (!apiKey) throw new Error('Set SVC_KEY to an svk_ key: npm run admin -- keys create <account id>');

const anthropic = new Anthropic({ apiKey, baseURL: `${url}/inference` });
const message = await anthropic.messages
  .stream({ model: 'svc-pro', max_tokens: 1024, messages: [{ role: 'user', content: 'Write a haiku about pools' }] })
  .on('text', (text) => process.stdout.write(text))
  .finalMessage();
console.log('\nusage:', message.usage);
