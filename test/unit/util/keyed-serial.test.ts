import { KeyedSerial } from '../../../src/util/keyed-serial';

/** A promise the test settles. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('KeyedSerial', () => {
  it('runs the work of one key in order, even after a failure, and other keys beside it', async () => {
    const serial = new KeyedSerial();
    const order: string[] = [];
    const first = gate();
    const a1 = serial.run('a', async () => {
      await first.opened;
      order.push('a1');
      throw new Error('a1 failed');
    });
    const a2 = serial.run('a', async () => {
      order.push('a2');
      return 'a2 done';
    });
    const b1 = serial.run('b', async () => {
      order.push('b1');
      return 'b1 done';
    });
    await expect(b1).resolves.toBe('b1 done');
    expect(order).toEqual(['b1']);
    first.open();
    await expect(a1).rejects.toThrow('a1 failed');
    await expect(a2).resolves.toBe('a2 done');
    expect(order).toEqual(['b1', 'a1', 'a2']);
  });
});
