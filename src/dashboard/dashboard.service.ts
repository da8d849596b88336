import { sql } from 'kysely';
import type { Account } from '../accounts/account.repository.ts';
import { checkEmail, type AccountsService } from '../accounts/accounts.service.ts';
import { badRequest, conflict, HttpError, notFound, unauthorized } from '../shared/errors.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/logger.ts';
import type { Db } from '../storage/database.ts';
import type { Mail, Mailer } from './mailer.ts';
import { hashPassword, passwordProblem, verifyPassword } from './password.ts';
import { hashToken, newSecretToken } from './secret-token.ts';

const SESSION_DAYS = 30;
const VERIFY_HOURS = 48;
const RESET_MINUTES = 60;

/** Who a dashboard session belongs to. */
export interface DashboardSession {
  readonly accountId: number | null;
  /** May use the operator console (admin-token sign-in, or an operator account). */
  readonly operator: boolean;
  readonly csrfToken: string;
}

export interface DashboardService {
  /**
   * Creates an unverified account with a password and emails its verification link. The account
   * is made even when the mail cannot be sent (`verificationSent` false): it exists, and Resend
   * (sendVerification) sends the link once mail works again.
   */
  signUp(email: string, password: string): Promise<{ account: Account; session: string; verificationSent: boolean }>;
  /** A session for the right email and password; 401 `wrong email or password` otherwise. */
  signIn(email: string, password: string): Promise<{ account: Account; session: string }>;
  /**
   * The address as signIn and requestPasswordReset compare it (PostgreSQL's lower() of it
   * trimmed), whether or not an account has it: the key of its per-address attempt limit.
   */
  emailKey(email: string): Promise<string>;
  /** A console session for the holder of the admin token. */
  openOperatorSession(): Promise<string>;
  session(cookie: string): Promise<DashboardSession | null>;
  signOut(cookie: string): Promise<void>;
  /** Emails a new verification link; MailNotSent (503) when the mail server does not take it. */
  sendVerification(accountId: number): Promise<void>;
  /** Follows an emailed link: single use, expiring, and only the account's newest one. */
  verifyEmail(token: string): Promise<Account>;
  /**
   * Emails a reset link when the address has an account; answers the same either way, except that
   * a link the mail server does not take is MailNotSent (503) and an address no account may have
   * (checkEmail) is 400.
   */
  requestPasswordReset(email: string): Promise<void>;
  /**
   * Sets a new password from an emailed link, ends every session of the account, and marks its
   * email verified (the link proved the inbox).
   */
  resetPassword(token: string, password: string): Promise<void>;
}

export interface DashboardServiceOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly mailer: Mailer;
  readonly accounts: AccountsService;
  readonly logger: Logger;
  /** Where links in emails point, e.g. `https://svc.example.com`. */
  readonly publicUrl: string;
}

const WRONG_LOGIN = 'wrong email or password';
const INVALID_LINK = 'this link is invalid, expired or already used';
const SUPERSEDED_LINK = 'a newer verification link was sent: use the link in the newest email';
/**
 * A verification link of the same account made after the one in `email_tokens` (created_at is
 * the database's clock, microseconds apart for links made by separate requests).
 */
const newerVerifyLink = sql`select 1 from email_tokens newer where newer.account_id = email_tokens.account_id
  and newer.purpose = 'verify' and newer.created_at > email_tokens.created_at`;
/** The form of a token this service mails (newSecretToken: 32 random bytes in base64url, 43 characters), with room. */
const EMAIL_TOKEN_FORM = /^[A-Za-z0-9_-]{10,200}$/;

/**
 * The mail server did not take a message (down, refusing, unreachable): a 503 the user can retry,
 * not the 500 of an unexpected failure. The mail server's own error stays on `cause`, for the log.
 */
export class MailNotSent extends HttpError {
  constructor(cause: unknown) {
    super(503, 'the email could not be sent - try again in a few minutes', { 'retry-after': '60' });
    this.cause = cause;
  }
}

function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw badRequest(`password: ${problem}`);
}

export function createDashboardService(opts: DashboardServiceOptions): DashboardService {
  const { db, clock, mailer, accounts } = opts;
  const later = (ms: number) => new Date(clock.now() + ms);

  // PostgreSQL's lower() on both sides, the function of the unique index: JavaScript's
  // toLowerCase() differs from it outside ASCII (a final capital sigma becomes ς, not σ), and an
  // address with one then never matched the account it made.
  const accountByEmail = (email: string) =>
    db.selectFrom('accounts').selectAll().where(sql`lower(email)`, '=', sql<string>`lower(${email.trim()})`).executeTakeFirst();

  async function newSession(accountId: number | null, operator: boolean): Promise<string> {
    const token = newSecretToken();
    await db
      .insertInto('dashboard_sessions')
      .values({
        id_hash: hashToken(token),
        account_id: accountId,
        operator,
        csrf_token: newSecretToken(),
        expires_at: later(SESSION_DAYS * 86_400_000),
      })
      .execute();
    return token;
  }

  async function newEmailToken(accountId: number, purpose: 'verify' | 'reset', ttlMs: number): Promise<string> {
    const token = newSecretToken();
    await db.insertInto('email_tokens').values({ token_hash: hashToken(token), account_id: accountId, purpose, expires_at: later(ttlMs) }).execute();
    return token;
  }

  /**
   * Marks a link used, once: a second use, an expired, unknown or malformed link (cut short by a
   * mail client, a full stop after it) is 400 in one set of words, a malformed one without a query.
   * Of an account's verification links only the newest verifies (Resend supersedes the earlier
   * ones); an earlier one, otherwise good, tells its reader to use the newest email. Given the
   * caller's transaction as `executor`, the link is spent only if what it does commits.
   */
  async function useEmailToken(token: string, purpose: 'verify' | 'reset', executor: Db = db): Promise<number> {
    if (!EMAIL_TOKEN_FORM.test(token)) throw badRequest(INVALID_LINK);
    const now = new Date(clock.now());
    const hash = hashToken(token);
    let update = executor
      .updateTable('email_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hash)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now);
    if (purpose === 'verify') update = update.where(sql<boolean>`not exists (${newerVerifyLink})`);
    const row = await update.returning('account_id').executeTakeFirst();
    if (row) return row.account_id;
    if (purpose === 'verify') {
      const superseded = await executor
        .selectFrom('email_tokens')
        .innerJoin('accounts', 'accounts.id', 'email_tokens.account_id')
        .select('email_tokens.account_id')
        .where('token_hash', '=', hash)
        .where('purpose', '=', 'verify')
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .where('accounts.email_verified', '=', false)
        .executeTakeFirst();
      if (superseded) throw badRequest(SUPERSEDED_LINK);
    }
    throw badRequest(INVALID_LINK);
  }

  async function deliver(mail: Mail): Promise<void> {
    try {
      await mailer.send(mail);
    } catch (e) {
      throw new MailNotSent(e);
    }
  }

  async function sendVerification(account: Account): Promise<void> {
    const token = await newEmailToken(account.id, 'verify', VERIFY_HOURS * 3_600_000);
    const link = `${opts.publicUrl}/account/verify?token=${token}`;
    try {
      await deliver({
        to: account.email,
        subject: 'Verify your svc email',
        text: `Welcome to svc.\n\nOpen this link to verify your email (valid ${VERIFY_HOURS} hours, once):\n${link}\n`,
        link,
      });
    } catch (e) {
      // A link nobody received must not supersede the one in the user's inbox.
      await db.deleteFrom('email_tokens').where('token_hash', '=', hashToken(token)).execute();
      throw e;
    }
  }

  return {
    async signUp(email, password) {
      // The form's first field first: a user who fixes the password is not then told the address is wrong.
      checkEmail(email);
      checkPassword(password);
      const account = await accounts.createAccount({ email, emailVerified: false });
      await db.updateTable('accounts').set({ password_hash: await hashPassword(password) }).where('id', '=', account.id).execute();
      let verificationSent = true;
      try {
        await sendVerification(account);
      } catch (e) {
        if (!(e instanceof MailNotSent)) throw e;
        // The account is made and its user signed in: a mail outage must not turn that into an error.
        opts.logger.warn({ err: e.cause, accountId: account.id }, 'the verification email of a new account could not be sent');
        verificationSent = false;
      }
      return { account, session: await newSession(account.id, account.is_operator), verificationSent };
    },

    async emailKey(email) {
      // The database's own lower(), not toLowerCase(), for the reason accountByEmail gives: one
      // account, one bucket, however its address is spelled.
      const r = await sql<{ key: string }>`select lower(${email.trim()}) as key`.execute(db);
      return r.rows[0]!.key;
    },

    async signIn(email, password) {
      const account = await accountByEmail(email);
      // Hash anyway when the account is missing, so timing does not tell which emails exist.
      const stored = account?.password_hash ?? 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
      const ok = await verifyPassword(password, stored);
      if (!account || !account.password_hash || !ok) throw unauthorized(WRONG_LOGIN);
      return { account, session: await newSession(account.id, account.is_operator) };
    },

    openOperatorSession: () => newSession(null, true),

    async session(cookie) {
      // An account's operator flag is read with every request, not copied at sign-in: an account
      // no longer marked operator loses the console at once, not when its session ends (30 days).
      const row = await db
        .selectFrom('dashboard_sessions as s')
        .leftJoin('accounts as a', 'a.id', 's.account_id')
        .select(['s.account_id', 's.csrf_token', sql<boolean>`coalesce(a.is_operator, s.operator)`.as('operator')])
        .where('s.id_hash', '=', hashToken(cookie))
        .where('s.expires_at', '>', new Date(clock.now()))
        .executeTakeFirst();
      return row ? { accountId: row.account_id, operator: row.operator, csrfToken: row.csrf_token } : null;
    },

    async signOut(cookie) {
      await db.deleteFrom('dashboard_sessions').where('id_hash', '=', hashToken(cookie)).execute();
    },

    async sendVerification(accountId) {
      const account = await db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirst();
      if (!account) throw notFound('account not found');
      if (account.email_verified) throw conflict('your email is already verified');
      await sendVerification(account);
    },

    async verifyEmail(token) {
      const accountId = await useEmailToken(token, 'verify');
      return accounts.verifyEmail(accountId);
    },

    async requestPasswordReset(email) {
      const account = await accountByEmail(email);
      // An address no account can have is a typo to point out, not a link to wait for; checked
      // only without an account, so one made under older rules can still reset its password.
      if (!account) return checkEmail(email);
      const token = await newEmailToken(account.id, 'reset', RESET_MINUTES * 60_000);
      const link = `${opts.publicUrl}/account/reset?token=${token}`;
      await deliver({
        to: account.email,
        subject: 'Reset your svc password',
        text: `Someone asked to reset the password of this svc account.\n\nOpen this link within ${RESET_MINUTES} minutes to choose a new one (it works once):\n${link}\n\nIf it was not you, ignore this email.\n`,
        link,
      });
    },

    async resetPassword(token, password) {
      checkPassword(password);
      // Hashed before the transaction: scrypt's 100 ms would hold it (and PGlite's one connection) open.
      const passwordHash = await hashPassword(password);
      // One transaction: a failure anywhere leaves the link, the password, the sessions and the
      // email's verification all as they were, never a new password beside an unverified email.
      const { accountId, wasVerified } = await db.transaction().execute(async (trx) => {
        const accountId = await useEmailToken(token, 'reset', trx);
        const account = await trx
          .updateTable('accounts')
          .set({ password_hash: passwordHash })
          .where('id', '=', accountId)
          .returning('email_verified')
          .executeTakeFirstOrThrow();
        await trx.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute();
        // The account's other reset links end too: one requested earlier (by whoever could read
        // the mailbox then) must not set a password after its owner has chosen a new one.
        await trx
          .updateTable('email_tokens')
          .set({ used_at: new Date(clock.now()) })
          .where('account_id', '=', accountId)
          .where('purpose', '=', 'reset')
          .where('used_at', 'is', null)
          .execute();
        // The link was read in the account's inbox, which is all a verification link proves: an
        // account whose first email never came (or expired) is verified by the reset, as most
        // services do.
        if (!account.email_verified) await accounts.verifyEmail(accountId, trx);
        return { accountId, wasVerified: account.email_verified };
      });
      if (!wasVerified) opts.logger.info({ accountId }, 'email verified by a password reset from the emailed link');
    },
  };
}
