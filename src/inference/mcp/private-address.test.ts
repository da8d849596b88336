import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPrivateAddress } from './private-address.ts';

describe('isPrivateAddress', () => {
  it('refuses loopback, private, link-local, metadata and mapped addresses', () => {
    for (const ip of [
      '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
      '::1', '::', 'fe80::1', 'fd00::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1', '224.0.0.1',
      'not-an-ip',
    ]) {
      assert.equal(isPrivateAddress(ip), true, ip);
    }
  });

  it('lets public addresses through', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      assert.equal(isPrivateAddress(ip), false, ip);
    }
  });
});
