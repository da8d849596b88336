import assert from 'node:assert/strict';

/**
 * Runs `call`, which must fail with an instance of `errorClass` (an SDK's `APIError`), and gives
 * that error: its class, status and body are what a client of the SDK sees.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDKs' error constructors take different arguments
export async function sdkFailure<E>(errorClass: abstract new (...args: any[]) => E, call: () => Promise<unknown>): Promise<E> {
  try {
    await call();
  } catch (e) {
    assert.ok(e instanceof errorClass, `an ${errorClass.name}, not ${String(e)}`);
    return e;
  }
  assert.fail('the call succeeded');
}
