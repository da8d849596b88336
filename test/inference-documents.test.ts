import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { catalogYaml, PRICES, startGateway, startWithSdks, UPSTREAM_MODELS, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';
import { assertPaidForUsages } from './helpers/books.ts';
import { auditRequests } from './helpers/spec-audit.ts';

/**
 * Documents and files as input (docs/api-decisions.md, "Documents and files as input"): Anthropic
 * `document` blocks, responses `input_file` and chat `file` parts, through the official SDKs, as
 * each upstream kind receives them.
 */

/** A two-page PDF: small, with the page objects a real one has. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >> endobj\n2 0 obj << /Type /Page >> endobj\n3 0 obj << /Type /Page >> endobj\n%%EOF').toString('base64');
const PDF_URI = `data:application/pdf;base64,${PDF}`;
const PDF_URL = 'https://example.com/report.pdf';

type Block = { type: string; source?: Record<string, unknown>; title?: string; context?: string; citations?: unknown; content?: Block[]; text?: string };
type SentAnthropic = { messages: { role: string; content: Block[] }[] };
type SentOpenAI = { messages: { role: string; content: unknown }[] };

describe('documents as input', () => {
  let g: Gateway;
  let acct: TestAccount;
  let anthropic: Anthropic;
  let openai: OpenAI;
  /** The same gateway set-up with svc-vision on the OpenAI-compatible fake. */
  let gv: Gateway;
  let acctV: TestAccount;
  let openaiV: OpenAI;

  before(async () => {
    ({ g, acct, anthropic, openai } = await startWithSdks());
    gv = await startGateway({
      env: { RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' },
      catalog: (f) => catalogYaml(f).replace(`deployments: [{ provider: main-anthropic, model: ${UPSTREAM_MODELS.vision} }]`, 'deployments: [{ provider: main-openai, model: gpt-4.1 }]'),
    });
    acctV = await createTestAccount(gv.t, { credits: 100_000 });
    openaiV = gv.client(acctV.key);
  });
  after(async () => {
    await g.close();
    await gv.close();
  });

  const { refused } = auditRequests(() => ({ g, key: acct.key }));
  const refusedV = auditRequests(() => ({ g: gv, key: acctV.key })).refused;
  const sentAnthropic = () => g.anthropic.requests.at(-1)!.body as SentAnthropic;
  const sentOpenAI = (gw: Gateway) => gw.openai.requests.at(-1)!.body as SentOpenAI;

  describe('/v1/messages (Anthropic SDK) to an Anthropic upstream', () => {
    for (const streamed of [false, true]) {
      it(`sends base64, text, content and url documents on as document blocks, billed at the upstream's usage, ${streamed ? 'streamed' : 'not streamed'}`, async () => {
        const usage = { input: 6400, cached: 0, output: 12 };
        g.anthropic.chat.enqueue({ text: 'A quarterly report.', usage });
        const ask = {
          model: 'svc-vision',
          max_tokens: 200,
          messages: [
            {
              role: 'user' as const,
              content: [
                { type: 'document' as const, source: { type: 'base64' as const, media_type: 'application/pdf' as const, data: PDF }, title: 'Q3', context: 'finance', citations: { enabled: true }, cache_control: { type: 'ephemeral' as const } },
                { type: 'document' as const, source: { type: 'text' as const, media_type: 'text/plain' as const, data: 'Revenue rose.' } },
                { type: 'document' as const, source: { type: 'content' as const, content: [{ type: 'text' as const, text: 'Part one.' }] } },
                { type: 'document' as const, source: { type: 'url' as const, url: PDF_URL } },
                { type: 'text' as const, text: 'What are these?' },
              ],
            },
          ],
        };
        const { row } = await assertPaidForUsages(g, acct.id, PRICES['svc-vision'], [usage], async () => {
          const m = streamed ? await anthropic.messages.stream(ask).finalMessage() : await anthropic.messages.create(ask);
          assert.equal((m.content[0] as Anthropic.TextBlock).text, 'A quarterly report.');
          assert.equal(m.usage.input_tokens, 6400);
        });
        assert.equal(row.input_tokens, 6400);
        assert.deepEqual(sentAnthropic().messages[0]!.content, [
          { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'Q3', context: 'finance', citations: { enabled: true }, cache_control: { type: 'ephemeral' } },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Revenue rose.' } },
          { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'Part one.' }] } },
          { type: 'document', source: { type: 'url', url: PDF_URL } },
          { type: 'text', text: 'What are these?' },
        ]);
      });
    }

    it('sends a document a tool returned inside its tool_result', async () => {
      g.anthropic.chat.enqueue({ text: 'Read it.' });
      await anthropic.messages.create({
        model: 'svc-vision',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'Fetch the report.' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'fetch', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }] }] },
        ],
        tools: [{ name: 'fetch', input_schema: { type: 'object' } }],
      });
      const result = sentAnthropic().messages.at(-1)!.content[0]!;
      assert.equal(result.type, 'tool_result');
      assert.deepEqual(result.content, [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }]);
    });

    it('count_tokens counts a PDF by its pages, without calling the upstream', async () => {
      const before = g.anthropic.requests.length;
      const messages = (content: Anthropic.ContentBlockParam[]) => [{ role: 'user' as const, content }];
      const plain = await anthropic.messages.countTokens({ model: 'svc-vision', messages: messages([{ type: 'text', text: 'Summarize.' }]) });
      const pdf = await anthropic.messages.countTokens({
        model: 'svc-vision',
        messages: messages([{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }, { type: 'text', text: 'Summarize.' }]),
      });
      assert.equal(pdf.input_tokens - plain.input_tokens, 2 * 3000);
      assert.equal(g.anthropic.requests.length, before);
    });

    it('refuses a malformed document, a file source and a PDF for a model without vision, naming the field', async () => {
      const doc = (source: unknown, model = 'svc-vision') => ({ model, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'document', source }, { type: 'text', text: 'x' }] }] });
      await refused('/v1/messages', doc({ type: 'base64', media_type: 'application/msword', data: PDF }), 'messages[0].content[0].source.media_type: must be one of application/pdf');
      await refused('/v1/messages', doc({ type: 'base64', media_type: 'application/pdf', data: '%%%' }), 'messages[0].content[0].source.data: must be base64');
      await refused('/v1/messages', doc({ type: 'file', file_id: 'file_1' }), 'messages[0].content[0].source.type: file sources are not supported (this service has no files API); send base64, text, content or url');
      await refused('/v1/messages', doc({ type: 'base64', media_type: 'application/pdf', data: PDF }, 'svc-pro'), 'messages[0].content[0]: model svc-pro does not accept PDF documents');
    });

    it('a plain-text document goes to a model without vision; on an OpenAI-compatible upstream as a text part', async () => {
      g.openai.chat.enqueue({ text: 'ok' });
      await anthropic.messages.create({
        model: 'svc-fast',
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Revenue rose.' } }, { type: 'text', text: 'Summarize.' }] }],
      });
      assert.deepEqual(sentOpenAI(g).messages.at(-1)!.content, [{ type: 'text', text: 'Revenue rose.' }, { type: 'text', text: 'Summarize.' }]);
    });
  });

  describe('OpenAI-compatible upstream of a vision model', () => {
    it('/v1/chat/completions (OpenAI SDK): a file part goes on as a file part with a data URI and a filename', async () => {
      const usage = { input: 6100, cached: 0, output: 5 };
      gv.openai.chat.enqueue({ text: 'A report.', usage });
      await assertPaidForUsages(gv, acctV.id, PRICES['svc-vision'], [usage], async () => {
        const c = await openaiV.chat.completions.create({
          model: 'svc-vision',
          messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: PDF_URI, filename: 'q3.pdf' } }, { type: 'text', text: 'What is it?' }] }],
        });
        assert.equal(c.choices[0]!.message.content, 'A report.');
      });
      assert.deepEqual(sentOpenAI(gv).messages.at(-1)!.content, [
        { type: 'file', file: { file_data: PDF_URI, filename: 'q3.pdf' } },
        { type: 'text', text: 'What is it?' },
      ]);
    });

    it('/v1/responses (OpenAI SDK): input_file data goes on as a file part; a file_url is a 400 naming url, as chat has no file by URL', async () => {
      gv.openai.chat.enqueue({ text: 'A report.' });
      const r = await openaiV.responses.create({
        model: 'svc-vision',
        input: [{ role: 'user', content: [{ type: 'input_file', file_data: PDF_URI, filename: 'q3.pdf' }, { type: 'input_text', text: 'What is it?' }] }],
      });
      assert.equal(r.output_text, 'A report.');
      assert.deepEqual(sentOpenAI(gv).messages.at(-1)!.content, [
        { type: 'file', file: { file_data: PDF_URI, filename: 'q3.pdf' } },
        { type: 'text', text: 'What is it?' },
      ]);
      await refusedV('/v1/responses', { model: 'svc-vision', input: [{ role: 'user', content: [{ type: 'input_file', file_url: PDF_URL }] }] }, 'url: this model cannot read a document by URL; send the file itself (base64 data)');
      await refusedV('/v1/messages', { model: 'svc-vision', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: PDF_URL } }] }] }, 'url: this model cannot read a document by URL; send the file itself (base64 data)');
    });
  });

  describe('/v1/responses and /v1/chat/completions to an Anthropic upstream', () => {
    it('input_file data and file_url become document blocks (base64 and url sources), the filename their title', async () => {
      g.anthropic.chat.enqueue({ text: 'Two reports.' });
      const r = await openai.responses.create({
        model: 'svc-vision',
        input: [{ role: 'user', content: [{ type: 'input_file', file_data: PDF_URI, filename: 'q3.pdf' }, { type: 'input_file', file_url: PDF_URL }, { type: 'input_text', text: 'Compare.' }] }],
      });
      assert.equal(r.output_text, 'Two reports.');
      assert.deepEqual(sentAnthropic().messages[0]!.content, [
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'q3.pdf' },
        { type: 'document', source: { type: 'url', url: PDF_URL } },
        { type: 'text', text: 'Compare.' },
      ]);
    });

    it('a chat file part becomes a document block', async () => {
      g.anthropic.chat.enqueue({ text: 'ok' });
      await openai.chat.completions.create({ model: 'svc-vision', messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: PDF_URI } }, { type: 'text', text: 'Read.' }] }] });
      assert.deepEqual(sentAnthropic().messages[0]!.content[0], { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } });
    });

    it('refuses file_id, other file types and PDFs for a model without vision, naming the field', async () => {
      await refused('/v1/responses', { model: 'svc-vision', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-abc' }] }] }, 'input[0].content[0].file_id: file ids are not supported (this service has no files API); send file_data');
      await refused('/v1/chat/completions', { model: 'svc-vision', messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] }, 'messages[0].content[0].file.file_id: file ids are not supported (this service has no files API); send file_data');
      await refused('/v1/chat/completions', { model: 'svc-vision', messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/zip;base64,UEsDBA==' } }] }] }, 'messages[0].content[0].file.file_data: must be a PDF (application/pdf) or plain text (text/plain), not application/zip');
      await refused('/v1/responses', { model: 'svc-fast', input: [{ role: 'user', content: [{ type: 'input_file', file_data: PDF_URI }] }] }, 'input[0]: model svc-fast does not accept PDF files');
      await refused('/v1/chat/completions', { model: 'svc-fast', messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: PDF_URI } }] }] }, 'messages[0].content[0]: model svc-fast does not accept PDF documents');
    });
  });
});
