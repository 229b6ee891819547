// Event coalescing E1–E9 (reference §5.3 / §9.4, Clusterpedia queue/event_test.go).
import { describe, expect, it } from 'vitest';
import { coalesce, type Action, type Coalescable } from '../../../src/roles/synchro/coalesce.js';

const ev = (action: Action, payload: string): Coalescable<string> => ({ action, payload });

describe('coalesce', () => {
  const cases: [string, Coalescable<string> | undefined, Coalescable<string> | undefined, Coalescable<string> | undefined][] = [
    ['E1 Added then Updated → Added with the newer object', ev('Added', 'o1'), ev('Updated', 'o2'), ev('Added', 'o2')],
    ['E2 no newer event → the older', ev('Added', 'o3'), undefined, ev('Added', 'o3')],
    ['E3 no older event → the newer', undefined, ev('Updated', 'o4'), ev('Updated', 'o4')],
    ['E4 newer Deleted wins', ev('Added', 'o5'), ev('Deleted', 'o6'), ev('Deleted', 'o6')],
    ['E5 Updated then Added → Added', ev('Updated', 'o7'), ev('Added', 'o8'), ev('Added', 'o8')],
    ['E6 Deleted then Updated → stays Deleted', ev('Deleted', 'o9'), ev('Updated', 'o10'), ev('Deleted', 'o9')],
    ['E7 Updated then Updated → the newer', ev('Updated', 'o11'), ev('Updated', 'o12'), ev('Updated', 'o12')],
    ['E8 Deleted then Added → Updated with the newer object', ev('Deleted', 'o13'), ev('Added', 'o14'), ev('Updated', 'o14')],
    ['E9 Added then Added → the newer', ev('Added', 'o15'), ev('Added', 'o16'), ev('Added', 'o16')],
  ];
  for (const [name, older, newer, expected] of cases) {
    it(name, () => {
      expect(coalesce(older, newer)).toEqual(expected);
    });
  }

  it('Deleted then Deleted → the newer deletion', () => {
    expect(coalesce(ev('Deleted', 'a'), ev('Deleted', 'b'))).toEqual(ev('Deleted', 'b'));
  });
});
