import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether something still listens on the port: binding it fails then. */
export async function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(true));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(false)));
  });
}

export interface NpmStart {
  /** npm's own process: the service runs as its child. */
  readonly npm: ChildProcess;
  readonly url: string;
  /** Everything npm and the service printed so far. */
  output(): string;
  /** Resolves with npm's exit code. */
  readonly exited: Promise<number | null>;
  /** Whether /healthz answered before npm exited (or the bound ran out). */
  readonly up: boolean;
}

/**
 * Runs `npm start` in `cwd` as a user does, on the embedded database in `dataDir`, with no
 * upstream, database server, Redis or admin token from the test's environment, and waits for
 * /healthz. The first start of a checkout compiles src/ first: the wait is a bound, not an assertion.
 */
export async function startNpm(opts: { cwd?: string; dataDir: string; env?: Record<string, string> }): Promise<NpmStart> {
  const port = await freePort();
  const npm = spawn('npm', ['start', '--silent'], {
    cwd: opts.cwd ?? process.cwd(),
    env: {
      ...process.env,
      DATA_DIR: opts.dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      REDIS_URL: '',
      ADMIN_TOKEN: '',
      LOG_LEVEL: 'info',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  let up = false;
  for (let i = 0; i < 3000 && npm.exitCode === null && !up; i++) {
    up = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  return { npm, url, output: () => out, exited, up };
}
