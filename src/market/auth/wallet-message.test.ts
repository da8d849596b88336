import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { sha256Hex } from './digest.ts';
import { isWithinWindow, parseUnixSeconds } from './timestamp-window.ts';
import { buildWalletMessage, parseWalletMessage, walletMessageCaseProblem } from './wallet-message.ts';
import { recoverWalletSigner } from './wallet-signature.ts';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const other = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const body = '{"wallet_addr":"x"}';
const fields = {
  wallet: account.address,
  timestamp: 1700000000,
  method: 'post',
  path: '/api/pool/trade',
  bodySha256: sha256Hex(body),
};

describe('wallet message', () => {
  it('is the one documented line, wallet and method normalised', () => {
    assert.equal(
      buildWalletMessage(fields),
      `svc-auth v1 ${account.address.toLowerCase()} 1700000000 POST /api/pool/trade ${sha256Hex(body)}`,
    );
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('parses its own output and nothing looser', () => {
    const msg = buildWalletMessage(fields);
    assert.deepEqual(parseWalletMessage(msg), { ...fields, wallet: account.address.toLowerCase(), method: 'POST' });
    const bad = [
      msg.replace(account.address.toLowerCase(), account.address), // checksummed, not lower case
      msg.replace('svc-auth v1', 'svc-auth v2'),
      msg.replace('1700000000', '01700000000'),
      msg.replace(' POST ', ' post '),
      `${msg} `,
      msg.replace(' ', '  '),
      msg.replace(sha256Hex(body), sha256Hex(body).toUpperCase()),
      msg.replace('/api/pool/trade', 'api/pool/trade'),
      '',
    ];
    for (const m of bad) assert.equal(parseWalletMessage(m), null, m);
  });

  it('names the part in the wrong case of a message that is otherwise one, and nothing else', () => {
    const msg = buildWalletMessage(fields);
    const lower = account.address.toLowerCase();
    assert.equal(walletMessageCaseProblem(msg.replace(lower, account.address)), 'wallet');
    assert.equal(walletMessageCaseProblem(msg.replace(lower, lower.replace('0x', '0X'))), 'wallet');
    assert.equal(walletMessageCaseProblem(msg.replace(' POST ', ' Post ')), 'method');
    assert.equal(walletMessageCaseProblem(msg.replace(sha256Hex(body), sha256Hex(body).toUpperCase())), 'digest');
    assert.equal(walletMessageCaseProblem(msg.replace(lower, account.address).replace(' POST ', ' post ')), 'wallet');
    for (const m of [msg, msg.replace('svc-auth v1', 'SVC-AUTH V1'), msg.replace('/api/pool/trade', '/API/pool/trade'), `${msg} `, 'hello', '']) {
      assert.equal(walletMessageCaseProblem(m), null, m);
    }
  });

  it('recovers the signer of a personal_sign signature', async () => {
    const msg = buildWalletMessage(fields);
    const sig = await account.signMessage({ message: msg });
    assert.equal(await recoverWalletSigner(msg, sig), account.address.toLowerCase());
    const sigOther = await other.signMessage({ message: msg });
    assert.equal(await recoverWalletSigner(msg, sigOther), other.address.toLowerCase());
    assert.notEqual(await recoverWalletSigner(`${msg}x`, sig), account.address.toLowerCase());
  });

  it('gives null for what is not a signature', async () => {
    const msg = buildWalletMessage(fields);
    assert.equal(await recoverWalletSigner(msg, '0x1234'), null);
    assert.equal(await recoverWalletSigner(msg, 'not hex'), null);
    assert.equal(await recoverWalletSigner(msg, `0x${'00'.repeat(65)}`), null);
  });
});

describe('timestamp window', () => {
  it('accepts 30 seconds either way, inclusive, and nothing beyond', () => {
    const now = 1_700_000_000_500;
    assert.equal(isWithinWindow(1_700_000_000, now), true);
    assert.equal(isWithinWindow(1_700_000_000 - 30, now), true);
    assert.equal(isWithinWindow(1_700_000_000 + 30, now), true);
    assert.equal(isWithinWindow(1_700_000_000 - 31, now), false);
    assert.equal(isWithinWindow(1_700_000_000 + 31, now), false);
  });

  it('reads only plain decimal seconds', () => {
    assert.equal(parseUnixSeconds('1700000000'), 1_700_000_000);
    for (const t of ['', '-5', '1.5', '1e9', ' 17', '0x10', '1700000000000000']) assert.equal(parseUnixSeconds(t), null, t);
  });
});
