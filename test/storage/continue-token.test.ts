// Continue tokens: opaque, round-trip their key values, and refuse anything issued for another order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeContinueToken, encodeContinueToken, fingerprint } from '../../src/storage/continue-token.js';

describe('continue tokens', () => {
  it('round-trip strings (any text), numbers and nulls; URL-safe', () => {
    const value = fc.oneof(fc.string({ unit: 'grapheme' }), fc.integer(), fc.constant(null));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 6 }), (values) => {
        const t = encodeContinueToken(values, 'fp');
        expect(t).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(decodeContinueToken(t, 'fp', values.length)).toEqual(values);
      }),
    );
  });

  it('rejects another fingerprint, another key count, other versions and garbage as Invalid', () => {
    const t = encodeContinueToken(['a', 1], fingerprint({ order: 'x' }));
    for (const f of [() => decodeContinueToken(t, fingerprint({ order: 'y' }), 2), () => decodeContinueToken(t, fingerprint({ order: 'x' }), 3), () => decodeContinueToken('%%%', 'f', 1),
      () => decodeContinueToken(Buffer.from('{"v":2,"f":"f","k":[1]}').toString('base64url'), 'f', 1), () => decodeContinueToken(Buffer.from('{"v":1,"f":"f","k":[{}]}').toString('base64url'), 'f', 1)]) {
      expect(f).toThrow(expect.objectContaining({ code: 'Invalid', retryable: false }));
    }
  });
});
