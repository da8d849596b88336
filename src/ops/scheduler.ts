/**
 * A small scheduler of periodic upkeep jobs, started and stopped with the app. Each job runs
 * every `everyMs` (the first run one period after start), never overlapping itself; a failure is
 * logged and the job runs again next period. Timers are unref'd: they never keep a process alive.
 */
export interface Job {
  readonly name: string;
  readonly everyMs: number;
  run(): Promise<unknown>;
}

export interface Scheduler {
  register(job: Job): void;
  start(): void;
  /** Stops the timers and waits for running jobs to finish. */
  stop(): Promise<void>;
}

export interface SchedulerLogger {
  error(obj: object, msg: string): void;
}

export function createScheduler(logger: SchedulerLogger): Scheduler {
  const jobs: Job[] = [];
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  let started = false;
  const launch = (job: Job) => {
    let busy = false;
    const t = setInterval(() => {
      if (busy) return;
      busy = true;
      const p = job
        .run()
        .catch((err: unknown) => logger.error({ err, job: job.name }, 'scheduled job failed'))
        .finally(() => {
          busy = false;
          running.delete(p);
        });
      running.add(p);
    }, job.everyMs);
    t.unref();
    timers.push(t);
  };
  return {
    register(job) {
      jobs.push(job);
      if (started) launch(job);
    },
    start() {
      if (started) return;
      started = true;
      jobs.forEach(launch);
    },
    async stop() {
      started = false;
      for (const t of timers.splice(0)) clearInterval(t);
      await Promise.allSettled([...running]);
    },
  };
}
