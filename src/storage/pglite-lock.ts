import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/** The embedded database's folder is open in another live process. */
export class DatabaseInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(`the embedded database in ${dir} is open in process ${pid}; PGlite serves one process at a time: stop it first, or use its admin API`);
    this.name = 'DatabaseInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Claims an embedded database folder for this process with a pid file beside it. PGlite writes
 * no lock of its own (its postmaster.pid names no real process), and two processes writing one
 * folder corrupt it: a second service, `npm run audit` or `seed:demo` on a running service's
 * DATA_DIR is refused instead. A file left by a process that died (SIGKILL) is taken over.
 * Returns the release, which removes the file if it is still ours.
 */
export function claimPgliteDir(lockFile: string, dir: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = readPid(lockFile);
      if (holder !== null && holder !== process.pid && isAlive(holder)) throw new DatabaseInUseError(dir, holder);
      // Stale (or ours): replace it, then make sure no other starter replaced it meanwhile.
      try {
        unlinkSync(lockFile);
      } catch {
        // Someone else removed it first; the next round decides.
      }
    }
  }
  const owner = readPid(lockFile);
  if (owner !== process.pid) throw new DatabaseInUseError(dir, owner ?? -1);
  return () => {
    if (readPid(lockFile) === process.pid) {
      try {
        unlinkSync(lockFile);
      } catch {
        // Already gone.
      }
    }
  };
}
