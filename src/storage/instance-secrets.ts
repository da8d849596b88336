import { createHash } from 'node:crypto';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { sql, type QueryExecutorProvider } from 'kysely';
import { ConfigError } from '../config/config-error.ts';

/** A secret as this instance found it: in its environment, or in (or just generated into) DATA_DIR. */
export interface LocalSecret {
  readonly name: 'admin_token' | 'secrets_key';
  /** The setting that gives it, for messages. */
  readonly setting: string;
  readonly label: string;
  /** Canonical text (the key in base64). */
  readonly value: string;
  readonly fromEnv: boolean;
  /** This start generated it (no setting, no file): it may give way to the database's. */
  readonly generated: boolean;
  readonly file: string | null;
  /**
   * Values this one replaced, still accepted as the recorded one (the sealing key's
   * SECRETS_KEY_PREVIOUS): during a rotation the record names the key every stored secret is
   * sealed with, which the new one can still open.
   */
  readonly previous?: readonly string[];
  /** The setting giving `previous` (SECRETS_KEY_PREVIOUS), for messages. */
  readonly previousSetting?: string;
  /** How messages name a value without showing it (the sealing key's id). */
  readonly describe?: (value: string) => string;
  /** How to carry on with a new value, for the message of a mismatch; none: the value cannot change in place. */
  readonly rotation?: string;
}

export interface SharedSecret {
  readonly value: string;
  /** This instance took the value another instance stored (its own generated one is discarded). */
  readonly adopted: boolean;
}

const fingerprint = (value: string): string => createHash('sha256').update(value).digest('hex');

interface Row {
  readonly value: string | null;
  readonly fingerprint: string;
  readonly created_at: Date | string;
}

async function read(db: QueryExecutorProvider, name: string): Promise<Row | null> {
  const r = await sql<Row>`select value, fingerprint, created_at from instance_secrets where name = ${name}`.execute(db);
  return r.rows[0] ?? null;
}

function keepInFile(file: string, value: string): void {
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * Makes every instance on one database use one admin token and one sealing key (a key sealed by
 * one instance must open on the others). The first instance to start records the secret: its
 * value when the service generated it, only a fingerprint when the operator set it in the
 * environment (the operator keeps it then). Later instances adopt a stored value in place of one
 * they just generated, and refuse to start, naming the setting, when theirs differs.
 */
export async function shareWithInstances(db: QueryExecutorProvider, local: LocalSecret): Promise<SharedSecret> {
  const fp = fingerprint(local.value);
  let row = await read(db, local.name);
  if (!row) {
    await sql`insert into instance_secrets (name, value, fingerprint) values (${local.name}, ${local.fromEnv ? null : local.value}, ${fp})
              on conflict (name) do nothing`.execute(db);
    row = (await read(db, local.name))!;
  }
  if (row.fingerprint === fp) return { value: local.value, adopted: false };
  // A rotation under way: the recorded value is one this instance still opens. Not for a value
  // this start just generated: that one is nobody's, the shared one is adopted below.
  const recorded = local.generated ? undefined : (local.previous ?? []).find((p) => fingerprint(p) === row.fingerprint);
  if (recorded !== undefined) {
    // "B, previous A" before the re-seal and "A, previous B" after it look alike here; only the
    // re-seal's record tells them apart: it retired A. An instance on A would seal with a key
    // the instances already given B alone (step 4 of the rotation) cannot open.
    const retired = await retiredAt(db, local.name, fp);
    if (retired !== null) throw leftBehind(local, recorded, retired);
    return { value: local.value, adopted: false };
  }

  const since = new Date(row.created_at).toISOString();
  const shared = `the ${local.label} of the other instances on this database (recorded ${since})`;
  if (row.value === null) {
    if (local.generated && local.file) rmSync(local.file, { force: true });
    throw new ConfigError(
      local.setting,
      `${local.fromEnv ? 'differs from' : 'is not set, but the instances on this database take it from their environment:'} ${shared}; ` +
        `give every instance the same ${local.setting}${rotation(local)} (docs/operations.md, "Several instances on one database")`,
    );
  }
  if (local.generated && local.file) {
    keepInFile(local.file, row.value);
    return { value: row.value, adopted: true };
  }
  const where = local.fromEnv ? `${local.setting} differs from` : `${local.file} holds another value than`;
  throw new ConfigError(
    local.setting,
    `${where} ${shared}; give every instance the same ${local.setting}, or remove ${local.fromEnv ? 'it' : 'that file'} ` +
      `to use the shared one${rotation(local)} (docs/operations.md, "Several instances on one database")`,
  );
}

async function retiredAt(db: QueryExecutorProvider, name: string, fp: string): Promise<string | null> {
  const r = await sql<{ retired_at: Date | string }>`select retired_at from instance_secrets_retired where name = ${name} and fingerprint = ${fp}`.execute(db);
  return r.rows[0] ? new Date(r.rows[0].retired_at).toISOString() : null;
}

function leftBehind(local: LocalSecret, recorded: string, retired: string): ConfigError {
  const name = local.describe ?? (() => 'a value');
  const previous = local.previousSetting ?? 'the previous values';
  return new ConfigError(
    local.setting,
    `is ${name(local.value)}, which a re-seal replaced (${retired}); the recorded ${local.label} is ${name(recorded)}, in this instance's ${previous}: ` +
      `this instance would seal with a key the other instances may no longer hold; give it ${local.setting}=<${name(recorded)}> and, while still needed, ${previous}=<${name(local.value)}> ` +
      `(docs/operations.md, "Rotating the sealing key")`,
  );
}

const rotation = (local: LocalSecret): string => (local.rotation ? `; ${local.rotation}` : '');

/**
 * Records `local` as the secret of every instance on this database, in place of the one recorded
 * (once every stored secret is sealed with it: the re-seal of a key rotation). From then on an
 * instance needs it, as its value or among its previous ones, to start, and an instance whose own
 * value is the one replaced does not start. Stored with its value only when the service generated
 * it, as at the first start.
 */
export async function recordSharedSecret(db: QueryExecutorProvider, local: LocalSecret): Promise<void> {
  const fp = fingerprint(local.value);
  // One statement, so the record and the list of what it replaced change together: the value
  // replaced is retired (shareWithInstances refuses an instance still on it), and a value
  // recorded again is no longer retired.
  await sql`
    with old as (select fingerprint from instance_secrets where name = ${local.name}),
    retire as (
      insert into instance_secrets_retired (name, fingerprint)
      select ${local.name}, fingerprint from old where fingerprint <> ${fp}
      on conflict (name, fingerprint) do nothing),
    restore as (delete from instance_secrets_retired where name = ${local.name} and fingerprint = ${fp})
    update instance_secrets set value = ${local.fromEnv ? null : local.value}, fingerprint = ${fp}, created_at = now()
    where name = ${local.name}`.execute(db);
}
