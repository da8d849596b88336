import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CanonicalChatRequest, CanonicalMessage, DocumentPart } from '../canonical/chat.ts';
import { PDF_PAGE_TOKENS, URL_DOCUMENT_TOKENS, documentFixedTokens, needsVision, pdfPages } from '../canonical/documents.ts';
import { estimateChatInput } from '../billing/estimate-input.ts';
import { convertToAnthropicMessages } from '../providers/anthropic/convert-to-anthropic-messages.ts';
import { convertToOpenAIChatMessages } from '../providers/openai-compatible/convert-to-openai-chat-messages.ts';
import { ProviderFailure } from '../providers/provider-failure.ts';
import { createReasoningSealers } from '../reasoning-sealer.ts';
import { estimateChatInputTokens } from '../tokens/count-tokens.ts';
import { parseMessagesRequest } from './anthropic-messages/parse-messages-request.ts';
import { parseChatCompletionRequest } from './openai-chat/parse-chat-completion-request.ts';
import { parseResponsesRequest } from './openai-responses/parse-responses-request.ts';
import { toCanonicalMessages } from './openai-responses/to-canonical-messages.ts';

const sealer = createReasoningSealers(randomBytes(32))(1);
/** A two-page PDF, small but with the page objects a real one has. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >> endobj\n2 0 obj << /Type /Page >> endobj\n3 0 obj << /Type /Page >> endobj\n%%EOF').toString('base64');
const NOT_PDF = Buffer.from('hello').toString('base64');

function error400(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.equal((e as { status?: number }).status, 400, String(e));
    return (e as Error).message;
  }
  return assert.fail('no error');
}

const messages = (content: unknown) => ({ model: 'svc-vision', max_tokens: 100, messages: [{ role: 'user', content }] });
const userParts = (r: CanonicalChatRequest) => (r.messages[0] as Extract<CanonicalMessage, { role: 'user' }>).content;
const chat = (content: unknown) => ({ model: 'svc-vision', messages: [{ role: 'user', content }] });
const responses = (content: unknown) => ({ model: 'svc-vision', input: [{ role: 'user', content }] });
const responsesParts = (body: unknown) => {
  const parsed = parseResponsesRequest(body, sealer);
  const m = toCanonicalMessages(null, parsed.input as never, (s, t) => `${s}__${t}`, sealer);
  return (m[0] as Extract<CanonicalMessage, { role: 'user' }>).content;
};

describe('document input: parsing', () => {
  it('reads the four Anthropic document sources with title, context, citations and cache_control', () => {
    const r = parseMessagesRequest(
      messages([
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'Report', context: 'Q3', citations: { enabled: true }, cache_control: { type: 'ephemeral' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
        { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] } },
        { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
        { type: 'text', text: 'Summarize.' },
      ]),
      sealer,
    ).request;
    assert.deepEqual(userParts(r).slice(0, 4), [
      { type: 'document', source: { type: 'pdf', data: PDF }, title: 'Report', context: 'Q3', citations: { enabled: true }, cacheControl: { type: 'ephemeral' } },
      { type: 'document', source: { type: 'text', text: 'plain words' } },
      { type: 'document', source: { type: 'content', texts: ['one', 'two'] } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
    ]);
  });

  it('takes a document inside a tool_result, as Anthropic does', () => {
    const r = parseMessagesRequest(
      {
        model: 'svc-vision',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'read it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }] }] },
        ],
      },
      sealer,
    ).request;
    const tool = r.messages.at(-1) as Extract<CanonicalMessage, { role: 'tool' }>;
    assert.deepEqual(tool.parts, [{ type: 'document', source: { type: 'pdf', data: PDF } }]);
  });

  it('refuses a malformed Anthropic document with a 400 naming the field', () => {
    const doc = (source: unknown) => error400(() => parseMessagesRequest(messages([{ type: 'document', source }]), sealer));
    assert.equal(doc({ type: 'base64', media_type: 'image/png', data: PDF }), 'messages[0].content[0].source.media_type: must be one of application/pdf');
    assert.equal(doc({ type: 'base64', media_type: 'application/pdf', data: 'not base64!' }), 'messages[0].content[0].source.data: must be base64');
    assert.equal(doc({ type: 'base64', media_type: 'application/pdf', data: NOT_PDF }), 'messages[0].content[0].source.data: must be a PDF (base64 of a file starting with %PDF-)');
    assert.equal(doc({ type: 'text', media_type: 'text/markdown', data: 'x' }), 'messages[0].content[0].source.media_type: must be one of text/plain');
    assert.equal(doc({ type: 'url', url: 'file:///etc/passwd' }), 'messages[0].content[0].source.url: must be an http(s) URL');
    assert.equal(doc({ type: 'file', file_id: 'file_1' }), 'messages[0].content[0].source.type: file sources are not supported (this service has no files API); send base64, text, content or url');
    assert.equal(doc({ type: 'content', content: [{ type: 'image', source: {} }] }), 'messages[0].content[0].source.content[0].type: unsupported content block type "image" here; expected text');
  });

  it('reads chat file parts (PDF or plain text data) and refuses file_id and other types', () => {
    const r = parseChatCompletionRequest(chat([{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'r.pdf' } }, { type: 'file', file: { file_data: `data:text/plain;base64,${Buffer.from('héllo').toString('base64')}` } }]), sealer).request;
    assert.deepEqual(userParts(r), [
      { type: 'document', source: { type: 'pdf', data: PDF }, title: 'r.pdf' },
      { type: 'document', source: { type: 'text', text: 'héllo' } },
    ]);
    const file = (f: unknown) => error400(() => parseChatCompletionRequest(chat([{ type: 'file', file: f }]), sealer));
    assert.equal(file({ file_id: 'file-abc' }), 'messages[0].content[0].file.file_id: file ids are not supported (this service has no files API); send file_data');
    assert.equal(file({ file_data: 'data:image/png;base64,AAAA' }), 'messages[0].content[0].file.file_data: must be a PDF (application/pdf) or plain text (text/plain), not image/png');
    assert.equal(file({ file_data: PDF }), 'messages[0].content[0].file.file_data: must be a base64 data URI (data:application/pdf;base64,...)');
    assert.equal(file({ file_data: `data:application/pdf;base64,${NOT_PDF}` }), 'messages[0].content[0].file.file_data: must be a PDF (base64 of a file starting with %PDF-)');
    assert.equal(file({ file_url: 'https://example.com/a.pdf' }), 'messages[0].content[0].file.file_data: is required');
  });

  it('reads responses input_file parts (file_data or file_url) and refuses file_id', () => {
    assert.deepEqual(responsesParts(responses([{ type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'r.pdf' }, { type: 'input_file', file_url: 'https://example.com/a.pdf' }])), [
      { type: 'document', source: { type: 'pdf', data: PDF }, title: 'r.pdf' },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
    ]);
    const part = (p: unknown) => error400(() => parseResponsesRequest(responses([{ type: 'input_file', ...(p as object) }]), sealer));
    assert.equal(part({ file_id: 'file-abc' }), 'input[0].content[0].file_id: file ids are not supported (this service has no files API); send file_data');
    assert.equal(part({ file_url: 'ftp://x/a.pdf' }), 'input[0].content[0].file_url: must be an http(s) URL');
    assert.equal(part({}), 'input[0].content[0].file_data: is required (or file_url)');
  });
});

describe('document input: translation to upstreams', () => {
  const pdf: DocumentPart = { type: 'document', source: { type: 'pdf', data: PDF }, title: 'Report', context: 'Q3', citations: { enabled: true }, cacheControl: { type: 'ephemeral' } };
  const text: DocumentPart = { type: 'document', source: { type: 'text', text: 'plain words' } };
  const chunks: DocumentPart = { type: 'document', source: { type: 'content', texts: ['one', 'two'] } };
  const url: DocumentPart = { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } };

  it('an Anthropic upstream gets document blocks with every source kind and the fields', () => {
    const { messages: out } = convertToAnthropicMessages([{ role: 'user', content: [pdf, text, chunks, url] }]);
    assert.deepEqual(out[0]!.content, [
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'Report', context: 'Q3', citations: { enabled: true }, cache_control: { type: 'ephemeral' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } },
      { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] } },
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
    ]);
  });

  it('an Anthropic upstream gets a document a tool returned inside its tool_result', () => {
    const { messages: out } = convertToAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: 'read' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_1', content: '', parts: [text] },
    ]);
    assert.deepEqual(out[2]!.content, [{ type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain words' } }] }]);
  });

  it('an OpenAI-compatible upstream gets a PDF as a file part, text documents as text, and a URL refused', () => {
    assert.deepEqual(convertToOpenAIChatMessages([{ role: 'user', content: [pdf, text, chunks] }]), [
      {
        role: 'user',
        content: [
          { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'Report' } },
          { type: 'text', text: 'plain words' },
          { type: 'text', text: 'one\n\ntwo' },
        ],
      },
    ]);
    assert.deepEqual(convertToOpenAIChatMessages([{ role: 'user', content: [{ ...pdf, title: undefined } as DocumentPart] }])[0], {
      role: 'user',
      content: [{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' } }],
    });
    assert.throws(() => convertToOpenAIChatMessages([{ role: 'user', content: [url] }]), (e: unknown) => e instanceof ProviderFailure && e.status === 400 && e.message.startsWith('url: '));
  });

  it('an OpenAI-compatible upstream gets a tool\'s document in a user message after the tool messages', () => {
    const out = convertToOpenAIChatMessages([
      { role: 'user', content: [{ type: 'text', text: 'read' }] },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'call_1', content: 'here', parts: [{ type: 'text', text: 'here' }, pdf] },
    ]);
    assert.deepEqual(out.slice(2), [
      { role: 'tool', tool_call_id: 'call_1', content: 'here' },
      { role: 'user', content: [{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'Report' } }] },
    ]);
  });
});

describe('document input: estimates', () => {
  it('counts a PDF by its page objects, or by its size when it shows none, within 1 and 600 pages', () => {
    assert.equal(pdfPages(PDF), 2);
    assert.equal(pdfPages(Buffer.from('%PDF-1.7\n' + 'x'.repeat(450 * 1024)).toString('base64')), 3);
    assert.equal(pdfPages(Buffer.from('%PDF-1.7\n' + '<< /Type /Page >>'.repeat(1000)).toString('base64')), 600);
    assert.equal(pdfPages(Buffer.from('%PDF-1.7').toString('base64')), 1);
  });

  it('holds a PDF by pages, not by its base64 length, and a URL document at a fixed size', () => {
    const pdf: DocumentPart = { type: 'document', source: { type: 'pdf', data: PDF } };
    const request = (content: DocumentPart[]): CanonicalChatRequest => ({ messages: [{ role: 'user', content }], tools: [], stop: [], stream: false });
    const base = estimateChatInput(request([]));
    assert.equal(estimateChatInput(request([pdf])) - base, 2 * PDF_PAGE_TOKENS);
    assert.equal(estimateChatInputTokens(request([pdf])) - estimateChatInputTokens(request([])), 2 * PDF_PAGE_TOKENS);
    assert.equal(documentFixedTokens({ type: 'document', source: { type: 'url', url: 'https://x/a.pdf' } }), URL_DOCUMENT_TOKENS);
    const text: DocumentPart = { type: 'document', source: { type: 'text', text: 'a'.repeat(300) } };
    assert.equal(estimateChatInput(request([text])) - base, 100);
    assert.equal(needsVision(pdf), true);
    assert.equal(needsVision(text), false);
  });
});
