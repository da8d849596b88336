import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isHexInWrongCase, signHmacHex, verifyHmac, type HmacParts } from './hmac.signature.ts';

const body = '{"market_id":1,"side":"yes","amount":"2.5","wallet_addr":"0xabc"}';
const trade: HmacParts = { timestamp: '1700000000', method: 'POST', path: '/api/pool/trade', rawBody: Buffer.from(body) };

describe('HMAC signature', () => {
  it('signs timestamp + METHOD + path + raw body, keyed with the secret, in lower-case hex', () => {
    // Expected values computed independently: printf '%s' "<string>" | openssl dgst -sha256 -hmac <secret>
    assert.equal(signHmacHex('mks_test-secret', trade), 'f729533b0f0504bdfe78e7f350697ef49137c7fece011a169159f07fa0f803d0');
    const noBody: HmacParts = { timestamp: '1700000000', method: 'delete', path: '/api/keys/mk_1', rawBody: Buffer.alloc(0) };
    assert.equal(signHmacHex('mks_tëst', noBody), 'a48dae09d52e07760cba7717e2740a56859b207f4839b348011c58676af1d4a1');
  });

  it('verifies the right signature in lower-case hex only (the documented encoding)', () => {
    const sig = signHmacHex('s3cret', trade);
    assert.equal(verifyHmac('s3cret', trade, sig), true);
    assert.equal(verifyHmac('s3cret', trade, sig.toUpperCase()), false);
    assert.equal(isHexInWrongCase(sig.toUpperCase()), true);
    assert.equal(isHexInWrongCase(`${sig.slice(0, 63)}F`), true);
    for (const s of [sig, sig.slice(0, 62).toUpperCase(), `${sig}00`, `${sig.slice(0, 63)}G`, '']) assert.equal(isHexInWrongCase(s), false, s);
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
