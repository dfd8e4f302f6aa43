import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUUID, throwIfAborted } from './compat.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomUUID', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('uses crypto.randomUUID where the browser has it', () => {
    const native = vi.spyOn(crypto, 'randomUUID');
    expect(randomUUID()).toMatch(V4);
    expect(native).toHaveBeenCalled();
  });

  it('makes v4 UUIDs from crypto.getRandomValues where crypto.randomUUID is missing', () => {
    const real = globalThis.crypto;
    vi.stubGlobal('crypto', { getRandomValues: <T extends ArrayBufferView>(bytes: T) => real.getRandomValues(bytes as unknown as Uint8Array) as unknown as T });
    expect(globalThis.crypto.randomUUID).toBeUndefined();
    const ids = new Set(Array.from({ length: 200 }, () => randomUUID()));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(V4);
  });
});

describe('throwIfAborted', () => {
  it('does nothing for a live signal or none', () => {
    expect(() => throwIfAborted(new AbortController().signal)).not.toThrow();
    expect(() => throwIfAborted(undefined)).not.toThrow();
  });

  it('throws the abort reason of an aborted signal', () => {
    const controller = new AbortController();
    const reason = new Error('stopped');
    controller.abort(reason);
    expect(() => throwIfAborted(controller.signal)).toThrow(reason);
  });

  it('throws an AbortError where the signal carries no reason (older browsers)', () => {
    const signal = { aborted: true, reason: undefined } as unknown as AbortSignal;
    expect(() => throwIfAborted(signal, 'WHEP connect aborted')).toThrow(expect.objectContaining({ name: 'AbortError', message: 'WHEP connect aborted' }));
  });
});
