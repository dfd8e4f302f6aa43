import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.ts';

describe('Semaphore', () => {
  it('hands out free slots at once and queues the rest in order', async () => {
    const sem = new Semaphore(1);
    const signal = new AbortController().signal;
    const first = await sem.acquire(signal);
    expect(sem.full).toBe(true);
    const order: number[] = [];
    const second = sem.acquire(signal).then((release) => (order.push(2), release));
    const third = sem.acquire(signal).then((release) => (order.push(3), release));
    first();
    first(); // a second call of the same release frees nothing more
    (await second)();
    (await third)();
    expect(order).toEqual([2, 3]);
    expect(sem.full).toBe(false);
  });

  it('lets an aborted waiter go without losing its slot', async () => {
    const sem = new Semaphore(1);
    const hold = await sem.acquire(new AbortController().signal);
    const abort = new AbortController();
    const waiting = sem.acquire(abort.signal);
    abort.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    hold();
    expect(sem.full).toBe(false);
  });

  it('tries for a slot without waiting', () => {
    const sem = new Semaphore(1);
    const release = sem.tryAcquire();
    expect(release).not.toBeNull();
    expect(sem.tryAcquire()).toBeNull();
    release?.();
    expect(sem.tryAcquire()).not.toBeNull();
  });
});

describe('Semaphore shared between keys', () => {
  it('gives a freed slot to the keys in turn: a key with many waiters delays another by one', async () => {
    const sem = new Semaphore(1);
    const signal = new AbortController().signal;
    const hold = await sem.acquire(signal, 'flood');
    const order: string[] = [];
    // Each holder frees its slot as soon as it has it.
    const take = (key: string, name: string) => sem.acquire(signal, key).then((release) => (order.push(name), release()));
    const waits = [...Array.from({ length: 5 }, (_, i) => take('flood', `flood-${i}`)), take('visitor', 'visitor')];
    hold();
    await Promise.all(waits);
    expect(order).toEqual(['flood-0', 'visitor', 'flood-1', 'flood-2', 'flood-3', 'flood-4']);
  });
});
