import type { ServerResponse } from 'node:http';
import { sendJson, startFakeServer, type FakeServer, type RecordedRequest } from './fake-server.ts';

/** How one queued request is answered: whatever bytes, timing or stall a test needs. */
export type Script = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface ScriptedUpstream extends FakeServer {
  /** Answers for the next requests, one each, in order; a request with none queued gets a 500. */
  readonly scripts: Script[];
}

/** A fake upstream on loopback that answers each request with the next queued script. */
export async function startScripted(): Promise<ScriptedUpstream> {
  const scripts: Script[] = [];
  const server = await startFakeServer((request, res) => {
    const script = scripts.shift();
    if (!script) return sendJson(res, 500, { error: { message: 'no script queued', type: 'server_error' } });
    return script(request, res);
  });
  return { ...server, scripts };
}
