import { startInstantUpstream } from '../lib/instant-upstream.ts';
import { startSlowUpstream } from '../lib/slow-upstream.ts';

// Child process of bench/gateway.ts: the instant upstream (a) and the slow-streaming one.
const instant = await startInstantUpstream(100);
const slow = await startSlowUpstream(1000);
process.on('message', (m: { type: string }) => {
  if (m.type === 'release') process.send!({ type: 'released', count: slow.release() });
  if (m.type === 'open') process.send!({ type: 'open', count: slow.open() });
});
process.send!({ type: 'ready', instantUrl: instant.url, slowUrl: slow.url });
