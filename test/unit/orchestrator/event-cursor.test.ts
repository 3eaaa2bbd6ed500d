import { EventCursor } from '../../../src/orchestrator/event-cursor';

describe('EventCursor', () => {
  it('hands on each id once and moves its floor over ids seen in a row', () => {
    const cursor = new EventCursor(10);
    expect([11, 12, 13].map((id) => cursor.take(id))).toEqual([true, true, true]);
    cursor.settle(0);
    expect(cursor.after).toBe(13);
    expect(cursor.take(12)).toBe(false);
    expect(cursor.take(13)).toBe(false);
  });

  it('keeps its floor below an id that is not visible yet, and takes it when it commits late', () => {
    const cursor = new EventCursor(10, 1000);
    // 11 was taken by a transaction that has not committed; 12 and 13 are visible.
    expect(cursor.take(12)).toBe(true);
    expect(cursor.take(13)).toBe(true);
    cursor.settle(0);
    expect(cursor.after).toBe(10);
    // The next read starts from the floor again: 12 and 13 are not handed on twice.
    expect(cursor.take(12)).toBe(false);
    expect(cursor.take(11)).toBe(true);
    cursor.settle(500);
    expect(cursor.after).toBe(13);
  });

  it('gives up on an id that never shows up (a rolled-back insert) after the grace period', () => {
    const cursor = new EventCursor(0, 1000);
    cursor.take(3);
    cursor.take(4);
    cursor.settle(100);
    expect(cursor.after).toBe(0);
    cursor.settle(900);
    expect(cursor.after).toBe(0);
    cursor.settle(1100);
    expect(cursor.after).toBe(4);
    expect(cursor.take(2)).toBe(false);
  });
});
