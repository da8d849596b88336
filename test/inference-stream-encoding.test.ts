import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWithSdks, type SdkSetup } from './helpers/gateway.ts';

/**
 * Streamed answers are written as latin1 when the service knows them to be ASCII (sse-response.ts):
 * any other text in the same write must still reach the client as UTF-8, byte for byte.
 */
const TEXTS = {
  ascii: 'Plain words, quotes "like this", a back\\slash, a tab\tand a line\nend.',
  mixed: 'Hello wörld, ça va? 你好 and 😀, then plain words again for a while, and é at the end é',
  latin1Range: 'naïve café',
};

describe('streamed answers reach the client in UTF-8 whether their text is ASCII or not', () => {
  let s: SdkSetup;
  before(async () => {
    s = await startWithSdks();
  });
  after(() => s.g.close());

  for (const burst of [false, true]) {
    for (const [name, text] of Object.entries(TEXTS)) {
      it(`chat completions, ${name} text, events ${burst ? 'in one upstream read' : 'one read each'}`, async () => {
        s.g.openai.chat.enqueue({ text, burst });
        const stream = await s.openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true });
        let got = '';
        for await (const c of stream) got += c.choices[0]?.delta.content ?? '';
        assert.equal(got, text);
      });

      it(`messages, ${name} text, on each upstream kind, events ${burst ? 'in one upstream read' : 'one read each'}`, async () => {
        for (const [model, fake] of [['svc-fast', s.g.openai], ['svc-vision', s.g.anthropic]] as const) {
          fake.chat.enqueue({ text, burst });
          const message = await s.anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
          assert.deepEqual(message.content.map((b) => (b.type === 'text' ? b.text : b.type)).join(''), text, model);
        }
      });
    }
  }

  it('text the upstream sent as \\u escapes reaches chat completions and messages clients whole', async () => {
    for (const burst of [false, true]) {
      s.g.openai.chat.enqueue({ text: TEXTS.mixed, burst, asciiEscapes: true });
      const stream = await s.openai.chat.completions.create({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true });
      let got = '';
      for await (const c of stream) got += c.choices[0]?.delta.content ?? '';
      assert.equal(got, TEXTS.mixed);
      s.g.openai.chat.enqueue({ text: TEXTS.mixed, burst, asciiEscapes: true });
      const message = await s.anthropic.messages.stream({ model: 'svc-fast', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      assert.equal(message.content.map((b) => (b.type === 'text' ? b.text : b.type)).join(''), TEXTS.mixed);
    }
  });

  it('the raw bytes of a streamed answer decode as UTF-8 without a replacement character', async () => {
    s.g.openai.chat.enqueue({ text: TEXTS.mixed, burst: true });
    const res = await fetch(`${s.g.t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.acct.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-fast', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const body = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    assert.ok(!body.includes('\ufffd'));
    let got = '';
    for (const line of body.split('\n')) {
      if (!line.startsWith('data: {')) continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] };
      got += chunk.choices[0]?.delta.content ?? '';
    }
    assert.equal(got, TEXTS.mixed);
  });
});
