import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startSseMcp, type FakeMcp } from './fakes/fake-mcp.ts';
import { startGateway, startWithSdks, type Gateway } from './helpers/gateway.ts';
import { createTestAccount, type TestAccount } from './helpers/inference.ts';

/**
 * Responses and messages against the wire facts of ../shared/guide/protocols.md, through the
 * official SDKs (docs/api-decisions.md, "Responses and messages: wire audit (session 26)").
 */
type Item = { id: string; type: string; role?: string; content?: { type: string; text?: string }[] } & Record<string, unknown>;
type UpstreamMessage = { role: string; content: unknown };

/** The answer's text (the SDK's stream().finalResponse() has no output_text when nothing is parsed). */
const textOf = (r: OpenAI.Responses.Response) =>
  r.output.flatMap((o) => (o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [])).join('');

describe('responses and messages: wire audit (session 26)', () => {
  let g: Gateway;
  let acct: TestAccount;
  let openai: OpenAI;
  let other: OpenAI;

  before(async () => {
    ({ g, acct, openai } = await startWithSdks());
    other = g.client((await createTestAccount(g.t, { credits: 1000 })).key);
  });
  after(async () => {
    await g.close();
  });

  const badRequest = (p: Promise<unknown>, message: string) =>
    assert.rejects(p, (e: unknown) => e instanceof OpenAI.BadRequestError && e.message.includes(message));
  const lastUpstreamMessages = () => (g.openai.requests.at(-1)!.body as { messages: UpstreamMessage[] }).messages;

  describe('item_reference', () => {
    it('resolves the ids of earlier input items, as of output items; another account gets 400 for them', async () => {
      g.openai.chat.enqueue({ text: 'answer one' }, { text: 'answer two' });
      const r1 = await openai.responses.create({ model: 'svc-fast', input: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'first' }] });
      const inputs = (await openai.responses.inputItems.list(r1.id, { order: 'asc' })).data as unknown as Item[];
      assert.deepEqual(inputs.map((i) => i.role), ['developer', 'user']);

      const r2 = await openai.responses.create({
        model: 'svc-fast',
        store: false,
        input: [
          { type: 'item_reference', id: inputs[0]!.id },
          { type: 'item_reference', id: inputs[1]!.id },
          { type: 'item_reference', id: r1.output[0]!.id! },
          { role: 'user', content: 'second' },
        ],
      });
      assert.equal(r2.output_text, 'answer two');
      assert.deepEqual(
        lastUpstreamMessages().map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)]),
        [['system', 'Be brief.'], ['user', 'first'], ['assistant', 'answer one'], ['user', 'second']].map(([role, text]) => [role, text]),
      );

      await badRequest(other.responses.create({ model: 'svc-fast', input: [{ type: 'item_reference', id: inputs[1]!.id }] }), `input[0].id: no stored item ${inputs[1]!.id}`);
    });
  });

  describe('ownership', () => {
    it("another key of the same account retrieves, continues and references the first key's responses", async () => {
      const issued = await g.t.app.inject({ method: 'POST', url: `/admin/accounts/${acct.id}/keys`, headers: g.t.admin, payload: { name: 'second' } });
      assert.equal(issued.statusCode, 201);
      const second = g.client(issued.json().key as string);
      g.openai.chat.enqueue({ text: 'one' }, { text: 'two' }, { text: 'three' });
      const r1 = await openai.responses.create({ model: 'svc-fast', instructions: 'Answer in French.', input: 'first' });
      assert.deepEqual((await second.responses.retrieve(r1.id)).output, r1.output);
      const r2 = await second.responses.create({ model: 'svc-fast', input: 'second', previous_response_id: r1.id });
      assert.equal(r2.output_text, 'two');
      assert.deepEqual(
        lastUpstreamMessages().map((m) => m.role),
        ['user', 'assistant', 'user'],
        'the earlier instructions are not carried over',
      );
      const inputs = (await openai.responses.inputItems.list(r1.id)).data as unknown as Item[];
      await second.responses.create({ model: 'svc-fast', store: false, input: [{ type: 'item_reference', id: inputs[0]!.id }] });
      assert.deepEqual(lastUpstreamMessages().map((m) => [m.role, m.content]), [['user', 'first']]);
    });
  });

  describe('MCP servers that fail, streamed', () => {
    let mg: Gateway;
    let client: OpenAI;
    let weather: FakeMcp;
    let silent: { url: string; close(): Promise<void> };
    before(async () => {
      [mg, weather, silent] = await Promise.all([
        startGateway({ env: { MCP_ALLOW_PRIVATE_NETWORKS: 'true', MCP_CALL_TIMEOUT_MS: '1000', MCP_CONNECT_TIMEOUT_MS: '1000', RATE_LIMIT_INFERENCE_PER_MINUTE: '10000' } }),
        startSseMcp({ slowMs: 10_000 }),
        startSilentServer(),
      ]);
      client = mg.client((await createTestAccount(mg.t, { credits: 1000 })).key);
    });
    after(async () => {
      await Promise.all([mg.close(), weather.close(), silent.close()]);
    });

    type Ev = { type: string; sequence_number: number };
    async function streamed(params: OpenAI.Responses.ResponseCreateParamsStreaming) {
      const started = Date.now();
      const stream = client.responses.stream(params);
      const events: Ev[] = [];
      stream.on('event', (e) => events.push(e as Ev));
      const final = await stream.finalResponse();
      assert.deepEqual(events.map((e) => e.sequence_number), events.map((_, i) => i), 'sequence numbers from 0 without gaps');
      return { final, types: events.map((e) => e.type), ms: Date.now() - started };
    }

    it('a server that accepts and never answers: the listing fails within the connect timeout, the model answers, the stream completes', async () => {
      mg.openai.chat.enqueue({ text: 'No tools today.' });
      const { final, types, ms } = await streamed({ model: 'svc-fast', input: 'hello', stream: true, tools: [{ type: 'mcp', server_label: 'mute', server_url: silent.url, require_approval: 'never' }] });
      assert.ok(types.includes('response.mcp_list_tools.in_progress') && types.includes('response.mcp_list_tools.failed'), types.join(' '));
      assert.equal(types.at(-1), 'response.completed');
      const listing = final.output.find((o) => o.type === 'mcp_list_tools')!;
      assert.ok(listing.type === 'mcp_list_tools' && listing.error, 'the listing has an error');
      assert.equal(textOf(final), 'No tools today.');
      assert.ok(ms < 8000, `took ${ms} ms`);
    });

    it('a tool that answers too slowly: response.mcp_call.failed, then the model answers', async () => {
      mg.anthropic.chat.enqueue({ toolCalls: [{ name: 'slow', arguments: { city: 'Rome' } }] }, { text: 'The tool failed.' });
      const { final, types } = await streamed({ model: 'svc-vision', input: 'slowly', stream: true, tools: [{ type: 'mcp', server_label: 'weather', server_url: weather.url, require_approval: 'never' }] });
      const call = final.output.find((o) => o.type === 'mcp_call')!;
      assert.ok(call.type === 'mcp_call' && /time/i.test(call.error ?? ''), JSON.stringify(call));
      assert.deepEqual(
        types.filter((t) => t.startsWith('response.mcp_call')),
        ['response.mcp_call_arguments.delta', 'response.mcp_call_arguments.done', 'response.mcp_call.in_progress', 'response.mcp_call.failed'],
      );
      assert.equal(textOf(final), 'The tool failed.');
      assert.equal(types.at(-1), 'response.completed');
    });
  });
});

/** A TCP server that accepts connections and never writes a byte: an MCP server that hangs. */
async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

