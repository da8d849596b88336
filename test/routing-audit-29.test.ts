import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { PLAIN_RESILIENCE, startShippedWithSdks, type Gateway } from './helpers/gateway.ts';
import { sdkAnswer, streamModel, streamedAnswer } from './helpers/routing.ts';

/**
 * The lane classifier as a user meets it through svc-shiplow (docs/api-decisions.md, "Lane
 * classifier: session 29"): the reported misses, then a few of the kinds a probe of 170 everyday
 * prompts found: networking and programming concepts asked in English or in another language
 * (code comes before multilingual, docs/routing.md), a container's state named without the word
 * docker, and one-letter messages.
 */
const REPORTED = [
  ['Explain the difference between TCP and UDP.', 'code'],
  ['¿Qué es un bucle for?', 'code'],
  ['什么是哈希表？', 'code'],
  ["Qu'est-ce qu'une classe abstraite ?", 'code'],
  ['k', 'general'],
  ['My container is in Created state and will not start, what is wrong?', 'code'],
] as const;

const MISSED = {
  code: [
    'What is the difference between TCP and UDP?',
    'TCP vs UDP?',
    'How does a TCP three-way handshake work?',
    'What is a load balancer?',
    '¿Cuál es la diferencia entre TCP y UDP?',
    '什么是链表？',
    "Qu'est-ce qu'une boucle for ?",
    'Why does my container stay in the Created state?',
  ],
  general: ['y', 'What is a handshake in business etiquette?'],
  multilingual: ['¿Qué es la fotosíntesis?', '什么是通货膨胀？', "Qu'est-ce que l'inflation ?"],
} as const;

describe('routing: session 29 lane classifier', () => {
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

  it('the reported prompts take their lanes through chat completions, messages and responses', async () => {
    for (const [text, lane] of REPORTED) {
      assert.equal(await laneOf(text), lane, text);
      const m = await streamedAnswer(anthropic.messages.create({ model: 'svc-shiplow', max_tokens: 300, messages: [{ role: 'user', content: text }], stream: true }).withResponse(), streamModel.messages);
      assert.equal(m.header('x-svc-lane'), lane, text);
      const r = sdkAnswer(await openai.responses.create({ model: 'svc-ultra', input: text }).withResponse());
      assert.equal(r.header('x-svc-lane'), lane, text);
    }
  });

  for (const lane of Object.keys(MISSED) as (keyof typeof MISSED)[]) {
    it(`${lane}: the probe's kinds of that lane`, async () => {
      for (const text of MISSED[lane]) assert.equal(await laneOf(text), lane, text);
    });
  }
});
