import { sql } from 'kysely';
import type Stripe from 'stripe';
import { MICRO_PER_CREDIT } from '../accounts/credits.amount.ts';
import { badRequest } from '../shared/errors.ts';
import type { Db } from '../storage/database.ts';

/** 1 credit = 0.001 USD, so one US cent buys 10 credits. */
export const CREDITS_PER_CENT = 10n;
export const MIN_TOPUP_CENTS = 500;
export const MAX_TOPUP_CENTS = 100_000;

export interface StripeSettings {
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** Another API host (tests point it at a fake on loopback), e.g. `http://127.0.0.1:12111`. */
  readonly apiBase: string | null;
}

export interface StripeTopUp {
  /** A Checkout Session for `cents` US cents; the browser goes to its url. */
  createCheckout(input: { accountId: number; email: string; cents: number; returnUrl: string }): Promise<string>;
  /**
   * Verifies a webhook's signature and credits a paid `checkout.session.completed` exactly once
   * per event, however often Stripe delivers it. Throws 400 on a bad signature.
   */
  handleWebhook(rawBody: Buffer, signature: string): Promise<{ readonly credited: boolean }>;
}

export function createStripeTopUp(db: Db, settings: StripeSettings): StripeTopUp {
  const api = settings.apiBase ? new URL(settings.apiBase) : null;
  // The SDK (some 20 MB of resident memory) is loaded on the first top-up, not at start.
  let client: Promise<Stripe> | null = null;
  const stripeClient = () =>
    (client ??= import('stripe').then(
      ({ default: StripeSdk }) =>
        new StripeSdk(settings.secretKey, {
          ...(api ? { host: api.hostname, port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)), protocol: api.protocol.replace(':', '') as 'http' | 'https' } : {}),
          maxNetworkRetries: 1,
        }),
    ));

  return {
    async createCheckout({ accountId, email, cents, returnUrl }) {
      if (!Number.isInteger(cents) || cents < MIN_TOPUP_CENTS || cents > MAX_TOPUP_CENTS) {
        throw badRequest(`amount: must be between ${MIN_TOPUP_CENTS / 100} and ${MAX_TOPUP_CENTS / 100} USD`);
      }
      const stripe = await stripeClient();
      const session = await stripe.checkout.sessions.create({
        mode: 'payment',
        customer_email: email,
        client_reference_id: String(accountId),
        metadata: { account_id: String(accountId) },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: cents,
              product_data: { name: `svc credits (${(BigInt(cents) * CREDITS_PER_CENT).toLocaleString('en-US')})` },
            },
          },
        ],
        success_url: `${returnUrl}?topup=success`,
        cancel_url: `${returnUrl}?topup=cancelled`,
      });
      if (!session.url) throw new Error('Stripe returned a checkout session without a url');
      return session.url;
    },

    async handleWebhook(rawBody, signature) {
      const stripe = await stripeClient();
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
      } catch {
        throw badRequest('invalid Stripe signature');
      }
      if (event.type !== 'checkout.session.completed') return { credited: false };
      const session = event.data.object;
      const accountId = Number(session.metadata?.account_id ?? session.client_reference_id);
      if (session.payment_status !== 'paid' || session.currency !== 'usd' || !Number.isSafeInteger(accountId) || !session.amount_total) {
        return { credited: false };
      }
      const micro = BigInt(session.amount_total) * CREDITS_PER_CENT * MICRO_PER_CREDIT;
      return db.transaction().execute(async (trx) => {
        const first = await trx
          .insertInto('stripe_events')
          .values({ event_id: event.id, account_id: accountId, credits: micro })
          .onConflict((oc) => oc.column('event_id').doNothing())
          .returning('event_id')
          .executeTakeFirst();
        if (!first) return { credited: false };
        const a = await trx
          .updateTable('accounts')
          .set({ credits: sql<bigint>`credits + ${micro}`, updated_at: sql<Date>`now()` })
          .where('id', '=', accountId)
          .returning('credits')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('credit_ledger')
          .values({ account_id: accountId, amount: micro, kind: 'grant', balance_after: a.credits, usage_id: null, note: `Stripe top-up ${event.id}` })
          .execute();
        return { credited: true };
      });
    },
  };
}
