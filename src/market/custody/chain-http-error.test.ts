import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HttpError } from '../../shared/errors.ts';
import { ChainError } from './chain-adapter.ts';
import { chainHttpError } from './chain-http-error.ts';

describe('chainHttpError', () => {
  it('answers 503 with retry-after, and hides the service side, when the chain or the hot wallet fails', () => {
    for (const code of ['chain_unavailable', 'misconfigured', 'hot_wallet_insufficient_funds', 'send_rejected'] as const) {
      const e = chainHttpError(new ChainError(code, 'the hot wallet holds 5 micro-USDC'));
      assert.ok(e instanceof HttpError);
      assert.equal(e.status, 503, code);
      assert.equal(e.headers['retry-after'], '5');
      assert.doesNotMatch(e.message, /hot wallet holds/);
    }
  });

  it("answers 400 with the adapter's reason when the client's transaction is the problem", () => {
    for (const code of ['tx_not_found', 'tx_pending', 'insufficient_confirmations', 'tx_reverted', 'no_transfer_to_vault', 'wrong_token', 'invalid_request'] as const) {
      const e = chainHttpError(new ChainError(code, 'transaction 0xab is not mined yet'));
      assert.ok(e instanceof HttpError);
      assert.equal(e.status, 400, code);
      assert.equal(e.message, 'Transaction 0xab is not mined yet');
    }
  });

  it('leaves other errors alone', () => {
    const boom = new Error('boom');
    assert.equal(chainHttpError(boom), boom);
  });
});
