import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU accounting a bench server child reports with its request count: the whole process
 * (`process.cpuUsage`, every thread) and its main thread alone, which runs every request's
 * JavaScript and bounds a server's throughput once it is busy all the time (docs/bench-gateway.md,
 * "Session 18"). The main thread's figure is read from Linux's /proc (clock ticks of 10 ms, so only
 * a run of seconds reads true); elsewhere it is null.
 */
export interface ServerStats {
  readonly type: 'stats';
  readonly cpuMicros: number;
  readonly mainThreadCpuMicros: number | null;
  readonly requests: number;
}

const TICK_MICROS = 10_000;

function mainThreadCpuMicros(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
  } catch {
    return null;
  }
}

export function serverStats(requests: number): ServerStats {
  const cpu = process.cpuUsage();
  return { type: 'stats', cpuMicros: cpu.user + cpu.system, mainThreadCpuMicros: mainThreadCpuMicros(), requests };
}

/** The machine's idle and total jiffies (/proc/stat), or null off Linux: its idle share over a run. */
export function machineTimes(): { idle: number; total: number } | null {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
    return { idle: cpu[3]! + cpu[4]!, total: cpu.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/**
 * CPU used so far by the machine's database and cache servers (every process whose command is
 * `postgres` or `redis-server`, from /proc), or null off Linux: what a gateway on PostgreSQL and
 * Redis costs the shared cores beyond its own process (docs/bench-gateway.md, "Session 21").
 * Other users of those servers during a run count too, so read it on a quiet machine.
 */
export function serverProcessesCpuMicros(): number | null {
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // gone since the listing
      }
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== 'postgres' && name !== 'redis-server') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * TICK_MICROS;
  } catch {
    return null;
  }
}
