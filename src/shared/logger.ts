import onExit from 'on-exit-leak-free';
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** A log line waits at most this long in the buffer. */
const FLUSH_EVERY_MS = 200;

let lastSecond = -1;
let secondText = '';
let lastMs = -1;
let lastTime = '';
/**
 * pino's isoTime, formatted once per millisecond, and from a prefix formatted once per second: a
 * loaded gateway writes a line or two per request, and `toISOString` per millisecond was still 3 µs
 * of a request's main thread in the profiles (docs/bench-gateway.md, "Session 18").
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    const second = Math.floor(now / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      // `2026-11-28T08:53:28.`: the date and time up to the milliseconds.
      secondText = `,"time":"${new Date(second * 1000).toISOString().slice(0, 20)}`;
    }
    const ms = now - second * 1000;
    lastTime = `${secondText}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z"`;
  }
  return lastTime;
}

/** Lines are handed to the destination in chunks of at least this many characters (its default largest write). */
const CHUNK = 16_384;

interface Sink {
  write(chunk: string): boolean;
}

/**
 * Joins log lines into chunks before sonic-boom sees them. sonic-boom appends each write to its
 * last buffered string and takes that string's byte length on every write, which flattens it: a
 * copy of up to 16 KB per line, about 5 µs of CPU per line here and 8 µs per gateway request in
 * the profiles (docs/bench-gateway.md, "Session 11"). One write per chunk pays that once.
 */
export class LineBuffer {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly sink: Sink) {}

  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= CHUNK) this.drain();
    return true;
  }

  /**
   * Hands the buffered lines to the destination, which writes them synchronously: this is also
   * the flush at exit.
   */
  drain(): void {
    if (this.lines.length > 0) this.sink.write(this.take());
  }

  /** The buffered lines as one string, leaving the buffer empty. */
  private take(): string {
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    return text;
  }
}

/**
 * Lines go to stdout in chunks of 16 KB, written when full and every 200 ms: a write system call
 * per line (two per request at `info`) cost more CPU than any other single step of a gateway
 * request in the profiles (docs/bench-gateway.md). The chunks are written synchronously, as
 * pino's default destination and Node's own stdout on a Linux pipe do: an asynchronous write
 * still waiting for a libuv worker at exit would be lost or land after the lines written then.
 * The buffer is flushed at exit; a process killed outright loses at most the last 200 ms.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, minLength: 0, sync: true }) as unknown as Sink;
  const lines = new LineBuffer(destination);
  onExit.register(lines, (l) => {
    try {
      l.drain();
    } catch {
      // stdout already closed: nothing can be written.
    }
  });
  // The timer holds the buffer weakly, so a logger dropped (as tests do) takes its timer with it.
  const held = new WeakRef(lines);
  const timer = setInterval(() => {
    const l = held.deref();
    if (l === undefined) return clearInterval(timer);
    try {
      l.drain();
    } catch {
      // stdout closed: nothing can be written.
    }
  }, FLUSH_EVERY_MS).unref();
  return pino({
    level,
    base: { service: 'svc' },
    timestamp: isoTime,
    // Credentials never reach the logs.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-api-signature"]',
        'req.headers["x-wallet-signature"]',
        'req.headers.cookie',
      ],
      censor: '[redacted]',
    },
  }, lines);
}
