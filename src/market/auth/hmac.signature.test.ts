import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signHmacHex, verifyHmac, type HmacParts } from './hmac.signature.ts';

const body = '{"market_id":1,"side":"yes","amount":"2.5","wallet_addr":"0xabc"}';
const trade: HmacParts = { timestamp: '1700000000', method: 'POST', path: '/api/pool/trade', rawBody: Buffer.from(body) };

describe('HMAC signature', () => {
  it('signs timestamp + METHOD + path + raw body, keyed with the secret, in lower-case hex', () => {
    // Expected values computed independently: printf '%s' "<string>" | openssl dgst -sha256 -hmac <secret>
    assert.equal(signHmacHex('mks_test-secret', trade), 'f729533b0f0504bdfe78e7f350697ef49137c7fece011a169159f07fa0f803d0');
    const noBody: HmacParts = { timestamp: '1700000000', method: 'delete', path: '/api/keys/mk_1', rawBody: Buffer.alloc(0) };
    assert.equal(signHmacHex('mks_tëst', noBody), 'a48dae09d52e07760cba7717e2740a56859b207f4839b348011c58676af1d4a1');
  });

  it('verifies the right signature, in either hex case', () => {
    const sig = signHmacHex('s3cret', trade);
    assert.equal(verifyHmac('s3cret', trade, sig), true);
    assert.equal(verifyHmac('s3cret', trade, sig.toUpperCase()), true);
  });

  it('refuses another secret, another part of the request, and malformed hex', () => {
    const sig = signHmacHex('s3cret', trade);
    assert.equal(verifyHmac('other', trade, sig), false);
    assert.equal(verifyHmac('s3cret', { ...trade, timestamp: '1700000001' }, sig), false);
    assert.equal(verifyHmac('s3cret', { ...trade, method: 'PUT' }, sig), false);
    assert.equal(verifyHmac('s3cret', { ...trade, path: '/api/pool/deposit' }, sig), false);
    assert.equal(verifyHmac('s3cret', { ...trade, rawBody: Buffer.from(`${body} `) }, sig), false);
    assert.equal(verifyHmac('s3cret', trade, sig.slice(0, 62)), false);
    assert.equal(verifyHmac('s3cret', trade, `${sig}00`), false);
    assert.equal(verifyHmac('s3cret', trade, `${sig.slice(0, 63)}g`), false);
    assert.equal(verifyHmac('s3cret', trade, ''), false);
  });
});
