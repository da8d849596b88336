import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { PLAIN_RESILIENCE, startShippedWithSdks, type Gateway } from './helpers/gateway.ts';
import { sdkAnswer, streamModel, streamedAnswer } from './helpers/routing.ts';

/**
 * The lane classifier as a user meets it through svc-shiplow (docs/api-decisions.md, "Lane
 * classifier: session 28"): three reported misses, then the kinds of prompt a probe of 132
 * everyday prompts found in the wrong lane: short questions about programming concepts with no
 * code in them, everyday installs and updates of phones and household things, everyday questions
 * in Japanese, and short greetings in another language.
 */
const REPORTED = [
  ['日本で一番高い山は何ですか？', 'multilingual'],
  ["What's the difference between let and const?", 'code'],
  ['How do I update my iPhone to the latest iOS?', 'general'],
] as const;

const MISSED = {
  code: [
    'What is a closure?',
    'How do I exit vim?',
    "What's the difference between a list and a tuple?",
    'What is recursion?',
    'What is polymorphism?',
    'What does the static keyword do?',
    'What is a hash map?',
    '¿Cuál es la diferencia entre let y const?',
    'Was ist ein Pointer?',
  ],
  general: [
    'How do I install a ceiling fan?',
    'How do I install a dishwasher?',
    'Can I install solar panels myself?',
    'How do I update Windows 11?',
  ],
  multilingual: ['世界で一番長い川は何ですか？', '一番おいしいラーメン屋はどこですか？', '¿Qué tal?', 'Olá!'],
} as const;

describe('routing: session 28 lane classifier', () => {
  let g: Gateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    ({ g, openai, anthropic } = await startShippedWithSdks(PLAIN_RESILIENCE));
  });
  after(() => g.close());

  const laneOf = async (text: string) => {
    const r = await openai.chat.completions.create({ model: 'svc-shiplow', messages: [{ role: 'user', content: text }] }).withResponse();
    return sdkAnswer(r).header('x-svc-lane');
  };

  it('the three reported prompts take their lanes through chat completions, messages and responses', async () => {
    for (const [text, lane] of REPORTED) {
      assert.equal(await laneOf(text), lane, text);
      const m = await streamedAnswer(anthropic.messages.create({ model: 'svc-shiplow', max_tokens: 300, messages: [{ role: 'user', content: text }], stream: true }).withResponse(), streamModel.messages);
      assert.equal(m.header('x-svc-lane'), lane, text);
      const r = sdkAnswer(await openai.responses.create({ model: 'svc-ultra', input: text }).withResponse());
      assert.equal(r.header('x-svc-lane'), lane, text);
    }
  });

  for (const lane of Object.keys(MISSED) as (keyof typeof MISSED)[]) {
    it(`${lane}: the probe's misses of that lane`, async () => {
      for (const text of MISSED[lane]) assert.equal(await laneOf(text), lane, text);
    });
  }
});
