import type { Deployment, ResilienceSettings } from '../../config/catalog.ts';

/** Why an upstream call failed, as the breaker and the metrics count it. */
export type FailureClass = 'connection' | 'timeout' | 'rate_limited' | 'server_error' | 'refused';
/** How an upstream call ended. Client errors and aborts say nothing about the deployment's health. */
export type CallOutcome = 'success' | FailureClass | 'client_error' | 'aborted';
export type BreakerState = 'closed' | 'open' | 'half_open';

export const FAILURE_CLASSES: readonly FailureClass[] = ['connection', 'timeout', 'rate_limited', 'server_error', 'refused'];

/** One call's end, for metrics. */
export interface CallEvent {
  readonly deployment: Deployment;
  readonly outcome: CallOutcome;
  /** Until the answer (non-streamed) or the first content (streamed), or the failure. */
  readonly seconds: number;
}

/** A deployment's health now, for /admin/upstreams and the breaker gauge. */
export interface DeploymentStatus {
  readonly deployment: Deployment;
  readonly state: BreakerState;
  readonly inFlight: number;
  readonly consecutiveFailures: number;
  /** Calls and failures in the current breaker window. */
  readonly windowCalls: number;
  readonly windowFailures: number;
  /** When an open breaker lets a probe through (epoch ms), else null. */
  readonly openUntil: number | null;
  /** True when another instance opened it (through Redis). */
  readonly openedElsewhere: boolean;
  readonly lastFailure: { readonly outcome: FailureClass; readonly at: number } | null;
  readonly lastSuccessAt: number | null;
  readonly totals: { readonly calls: number; readonly failures: number };
}

/**
 * Where instances share opened breakers (Redis when configured): an instance that opens a breaker
 * writes until when; the others read it every sync interval and stay away too.
 */
export interface BreakerStore {
  open(key: string, until: number, ttlMs: number): Promise<void>;
  close(key: string): Promise<void>;
  /** Until when each key is open elsewhere (null: not open). */
  read(keys: readonly string[]): Promise<(number | null)[]>;
}

interface State {
  readonly deployment: Deployment;
  state: BreakerState;
  inFlight: number;
  consecutive: number;
  windowStart: number;
  windowCalls: number;
  windowFailures: number;
  openUntil: number;
  openedElsewhere: boolean;
  probing: boolean;
  lastFailure: { outcome: FailureClass; at: number } | null;
  lastSuccessAt: number | null;
  calls: number;
  failures: number;
}

export interface DeploymentHealth {
  /**
   * Whether a call may go to the deployment now. Closed: yes. Open: no until the cooldown ends,
   * then one call (the probe) and no other until it ended. The caller must begin() right away.
   */
  admits(d: Deployment): boolean;
  /**
   * Whether admits() would let a call through now, without taking the probe: what a choice made
   * before any call (svc-auto's model) reads, so it does not pick a model whose calls would all be
   * refused.
   */
  takesCalls(d: Deployment): boolean;
  inFlight(d: Deployment): number;
  /** A call starts; the returned function ends it with its outcome. */
  begin(d: Deployment): (outcome: CallOutcome) => void;
  snapshot(): DeploymentStatus[];
  /** Calls `listener` after every call; returns the unsubscribe function. */
  subscribe(listener: (event: CallEvent) => void): () => void;
  close(): void;
}

export interface DeploymentHealthOptions {
  readonly settings: ResilienceSettings['breaker'];
  readonly deployments: readonly Deployment[];
  readonly now: () => number;
  readonly store?: BreakerStore | null;
  /** Store failures are not the requests' problem; they are reported here. */
  readonly onStoreError?: (error: unknown) => void;
}

/**
 * Per-deployment circuit breakers and in-flight counts. A breaker opens after
 * `consecutive_failures` failures in a row, or when failures are at least `failure_ratio` of the
 * calls in the current window once it saw `min_requests`; after `cooldown_ms` one probe call is let
 * through (half-open): success closes it, failure opens it for another cooldown.
 */
export function createDeploymentHealth(opts: DeploymentHealthOptions): DeploymentHealth {
  const s = opts.settings;
  const states = new Map<string, State>();
  const listeners = new Set<(event: CallEvent) => void>();
  const store = opts.store ?? null;
  const storeFailed = (e: unknown) => opts.onStoreError?.(e);

  const stateOf = (d: Deployment): State => {
    let st = states.get(d.key);
    if (!st) {
      st = {
        deployment: d, state: 'closed', inFlight: 0, consecutive: 0, windowStart: opts.now(), windowCalls: 0, windowFailures: 0,
        openUntil: 0, openedElsewhere: false, probing: false, lastFailure: null, lastSuccessAt: null, calls: 0, failures: 0,
      };
      states.set(d.key, st);
    }
    return st;
  };
  for (const d of opts.deployments) stateOf(d);

  const open = (st: State, now: number) => {
    st.state = 'open';
    st.openUntil = now + s.cooldownMs;
    st.openedElsewhere = false;
    st.probing = false;
    if (store) store.open(st.deployment.key, st.openUntil, s.cooldownMs).catch(storeFailed);
  };

  const closeBreaker = (st: State, now: number) => {
    const wasOpen = st.state !== 'closed';
    st.state = 'closed';
    st.consecutive = 0;
    st.windowStart = now;
    st.windowCalls = 0;
    st.windowFailures = 0;
    st.probing = false;
    st.openedElsewhere = false;
    if (wasOpen && store) store.close(st.deployment.key).catch(storeFailed);
  };

  const refresh = (st: State, now: number) => {
    if (st.state === 'open' && now >= st.openUntil) {
      st.state = 'half_open';
      st.probing = false;
    }
    if (now - st.windowStart >= s.windowMs) {
      st.windowStart = now;
      st.windowCalls = 0;
      st.windowFailures = 0;
    }
  };

  let timer: NodeJS.Timeout | null = null;
  if (store && opts.deployments.length > 0) {
    const keys = opts.deployments.map((d) => d.key);
    let syncing = false;
    timer = setInterval(() => {
      if (syncing) return;
      syncing = true;
      store
        .read(keys)
        .then((untils) => {
          const now = opts.now();
          untils.forEach((until, i) => {
            const st = states.get(keys[i]!)!;
            if (until !== null && until > now && st.state === 'closed') {
              st.state = 'open';
              st.openUntil = until;
              st.openedElsewhere = true;
            }
          });
        })
        .catch(storeFailed)
        .finally(() => {
          syncing = false;
        });
    }, s.syncIntervalMs);
    timer.unref();
  }

  return {
    admits(d) {
      const st = stateOf(d);
      refresh(st, opts.now());
      if (st.state === 'closed') return true;
      if (st.state === 'open' || st.probing) return false;
      st.probing = true;
      return true;
    },
    takesCalls(d) {
      const st = stateOf(d);
      refresh(st, opts.now());
      return st.state === 'closed' || (st.state === 'half_open' && !st.probing);
    },
    inFlight: (d) => stateOf(d).inFlight,
    begin(d) {
      const st = stateOf(d);
      const started = opts.now();
      const probe = st.state === 'half_open';
      st.inFlight++;
      let ended = false;
      return (outcome) => {
        if (ended) return;
        ended = true;
        st.inFlight--;
        const now = opts.now();
        refresh(st, now);
        if (outcome === 'success') {
          st.calls++;
          st.windowCalls++;
          st.consecutive = 0;
          st.lastSuccessAt = now;
          if (st.state !== 'closed' && (probe || st.openedElsewhere)) closeBreaker(st, now);
        } else if (outcome === 'client_error' || outcome === 'aborted') {
          // The deployment answered (or was not given the chance): no verdict. A probe cut short
          // leaves the next call to probe.
          if (probe) st.probing = false;
          if (outcome === 'client_error') {
            st.calls++;
            st.windowCalls++;
            st.consecutive = 0;
          }
        } else {
          st.calls++;
          st.failures++;
          st.windowCalls++;
          st.windowFailures++;
          st.consecutive++;
          st.lastFailure = { outcome, at: now };
          if (st.state === 'half_open' && probe) open(st, now);
          else if (
            st.state === 'closed' &&
            (st.consecutive >= s.consecutiveFailures ||
              (st.windowCalls >= s.minRequests && st.windowFailures / st.windowCalls >= s.failureRatio))
          ) {
            open(st, now);
          }
        }
        const event: CallEvent = { deployment: d, outcome, seconds: Math.max(0, now - started) / 1000 };
        for (const l of listeners) l(event);
      };
    },
    snapshot() {
      const now = opts.now();
      return [...states.values()].map((st) => {
        refresh(st, now);
        return {
          deployment: st.deployment,
          state: st.state,
          inFlight: st.inFlight,
          consecutiveFailures: st.consecutive,
          windowCalls: st.windowCalls,
          windowFailures: st.windowFailures,
          openUntil: st.state === 'open' ? st.openUntil : null,
          openedElsewhere: st.openedElsewhere,
          lastFailure: st.lastFailure,
          lastSuccessAt: st.lastSuccessAt,
          totals: { calls: st.calls, failures: st.failures },
        };
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
