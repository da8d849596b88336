import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * The 'profile-start' / 'profile-stop' side of a bench server child (BENCH_PROFILE): a CPU
 * profile, or a sampling allocation profile, of one load run, start-up excluded. `served()` counts
 * the requests the child answered, written into the file as `requests` (not a DevTools field) so
 * bench/profile-top.ts and bench/alloc-top.ts can print per-request figures.
 */
export function answerProfileMessages(served: () => number): void {
  let profiler: Session | null = null;
  let allocations = false;
  let servedAtStart = 0;
  process.on('message', (m: { type: string; file?: string; allocations?: boolean; live?: boolean }) => {
    if (m.type === 'profile-start') {
      void (async () => {
        profiler = new Session();
        profiler.connect();
        allocations = m.allocations === true;
        if (allocations) {
          // Every 4 KB allocated on average: what the garbage collector's share of the CPU comes from.
          const collected = m.live !== true;
          await profiler.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: collected, includeObjectsCollectedByMinorGC: collected });
        } else {
          await profiler.post('Profiler.enable');
          await profiler.post('Profiler.start');
        }
        servedAtStart = served();
        process.send!({ type: 'profile-started' });
      })();
    }
    if (m.type === 'profile-stop') {
      void (async () => {
        const requests = served() - servedAtStart;
        const { profile } = allocations ? await profiler!.post('HeapProfiler.stopSampling') : await profiler!.post('Profiler.stop');
        profiler!.disconnect();
        profiler = null;
        mkdirSync(join(m.file!, '..'), { recursive: true });
        writeFileSync(m.file!, JSON.stringify({ ...profile, requests }));
        process.send!({ type: 'profile-stopped' });
      })();
    }
  });
}
