import { subscribe } from 'node:diagnostics_channel';
import { request } from 'node:http';
import { serverStats } from '../lib/thread-cpu.ts';

// Child process of bench/gateway.ts: Portkey's open-source gateway (@portkey-ai/gateway, Node
// build), loaded from the folder the bench installed it into, on the port it was given.
const [startServer, port] = [process.argv[2]!, process.argv[3]!];
let requests = 0;
subscribe('http.server.request.start', () => void requests++);
process.argv = [process.argv[0]!, startServer, `--port=${port}`, '--headless'];
await import(startServer);

const answers = () =>
  new Promise<boolean>((resolve) => {
    const r = request({ host: '127.0.0.1', port: Number(port), path: '/', method: 'GET' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    r.on('error', () => resolve(false));
    r.end();
  });
while (!(await answers())) await new Promise((r) => setTimeout(r, 50));
requests = 0;

process.on('message', (m: { type: string }) => {
  if (m.type === 'stats') process.send!(serverStats(requests));
});
process.send!({ type: 'ready', url: `http://127.0.0.1:${port}` });
