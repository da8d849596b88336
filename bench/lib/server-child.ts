import type { Server } from 'node:http';
import { answerProfileMessages } from './profile-child.ts';
import { serverStats } from './thread-cpu.ts';

/**
 * The IPC side of a bench server child (bench/gateway.ts): counts the requests its server
 * receives, answers 'stats' with its CPU time (the process's and its main thread's, thread-cpu.ts)
 * and that count, and the profile messages (BENCH_PROFILE_TARGETS), and reports ready with its URL.
 */
export function serveBenchChild(server: Server, url: string): void {
  let requests = 0;
  server.on('request', () => void requests++);
  answerProfileMessages(() => requests);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') process.send!(serverStats(requests));
  });
  process.send!({ type: 'ready', url });
}
