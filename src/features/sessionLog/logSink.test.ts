import { describe, expect, it } from 'vitest';
import { createLogger } from '../../services/logger.ts';
import { connectLoggerToRecorder } from './logSink.ts';
import { createRecorder } from './recorder.ts';

describe('logger → session log', () => {
  it('records info, warnings and errors of other features, redacted, until disconnected', () => {
    const recorder = createRecorder();
    const disconnect = connectLoggerToRecorder(recorder);
    const log = createLogger('media');
    log.debug('chatty');
    createLogger('signaling').info('socket closed', { code: 1006, reason: '' });
    log.warn('ICE restart', { url: 'turn:x?token=abcdef123' });
    log.error('WHEP failed', { status: 500 });
    createLogger('sessionLog').warn('about itself');
    createLogger('sessionLog').info('session log downloaded');
    disconnect();
    log.error('after disconnect');
    const entries = recorder.snapshot().entries;
    expect(entries.map((e) => e.kind)).toEqual(['log', 'log', 'error']);
    expect(entries[0]).toMatchObject({ data: { feature: 'signaling', level: 'info', message: 'socket closed', data: { code: 1006 } } });
    expect(entries[1]).toMatchObject({ data: { feature: 'media', level: 'warn', message: 'ICE restart', data: { url: 'turn:x?token=[redacted]' } } });
    expect(entries[2]).toMatchObject({ data: { feature: 'media', message: 'WHEP failed', data: { status: 500 } } });
    expect(entries[2]).not.toHaveProperty('data.level');
  });

  it('records structured events (requests, VAD, recognizer) as their own kinds and ignores unknown kinds', () => {
    const recorder = createRecorder();
    const disconnect = connectLoggerToRecorder(recorder);
    const log = createLogger('http');
    log.event('request', { method: 'POST', url: '/start_live', status: 200, outcome: 'ok', ms: 42 });
    log.event('not-a-kind', { x: 1 });
    createLogger('voice').event('vad', { type: 'speechStart', frame: 11 });
    disconnect();
    const entries = recorder.snapshot().entries;
    expect(entries.map((e) => e.kind)).toEqual(['request', 'vad']);
    expect(entries[0]).toMatchObject({ data: { feature: 'http', url: '/start_live', outcome: 'ok', ms: 42 } });
    expect(entries[1]).toMatchObject({ data: { feature: 'voice', type: 'speechStart', frame: 11 } });
  });
});
