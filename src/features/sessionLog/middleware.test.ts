import { configureStore } from '@reduxjs/toolkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountLoaded, bootStarted } from '../account/accountSlice.ts';
import { rootReducer } from '../../app/store.ts';
import { startRequested } from '../session/sessionSlice.ts';
import { buildSessionLogFile, downloadSessionLog, serializeSessionLogFile, sessionLogFileName } from './exportLog.ts';
import { installSessionLogHotkey } from './hotkey.ts';
import { createSessionLogMiddleware, sessionLogDownloadRequested } from './middleware.ts';
import { createRecorder } from './recorder.ts';
import { SCHEMA_VERSION } from './types.ts';

const SPEECH_KEY = '8c1f0e2d3b4a59687766554433221100';

function setup(download = vi.fn()) {
  const recorder = createRecorder({ reducer: rootReducer, appVersion: '1.0.0', environment: 'local' });
  const store = configureStore({
    reducer: rootReducer,
    middleware: (getDefault) => getDefault().concat(createSessionLogMiddleware(recorder, { download })),
  });
  return { recorder, store, download };
}

function bootWithKey(store: ReturnType<typeof setup>['store']) {
  store.dispatch(bootStarted({ userId: 'demo', deviceId: 'H5a1b2c3d4e5f60718293a4b5c6d7e8f9' }));
  store.dispatch(
    accountLoaded({ photoUrl: null, title: 'Aria', label: null, background: null, asr: { appKey: SPEECH_KEY, region: 'eastasia' } }),
  );
}

describe('session log middleware', () => {
  afterEach(() => vi.restoreAllMocks());

  it('records the store creation, then every action in dispatch order, redacted', () => {
    const { recorder, store } = setup();
    bootWithKey(store);
    store.dispatch(startRequested());
    const entries = recorder.snapshot().entries;
    expect(entries.map((e) => (e.kind === 'action' ? e.action.type : e.kind))).toEqual([
      'store',
      'account/bootStarted',
      'account/accountLoaded',
      'session/startRequested',
    ]);
    expect(JSON.stringify(entries)).not.toContain(SPEECH_KEY);
    // the live state keeps the key: redaction copies, never mutates
    expect(store.getState().account.info?.asr?.appKey).toBe(SPEECH_KEY);
  });

  it('ignores thunks and other non-actions', () => {
    const { recorder, store } = setup();
    store.dispatch(() => undefined);
    expect(recorder.snapshot().entries.map((e) => e.kind)).toEqual(['store']);
  });

  it('downloads with the account and device ids when asked', () => {
    const { recorder, store, download } = setup();
    bootWithKey(store);
    store.dispatch(sessionLogDownloadRequested());
    expect(download).toHaveBeenCalledWith(recorder, { accountId: 'demo', deviceId: 'H5a1b2c3d4e5f60718293a4b5c6d7e8f9' });
  });

  it('Ctrl+Shift+L requests the download', () => {
    const { store, download } = setup();
    const uninstall = installSessionLogHotkey(window, store.dispatch);
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'L', ctrlKey: true, shiftKey: true }));
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'l', ctrlKey: true }));
    expect(download).toHaveBeenCalledTimes(1);
    uninstall();
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'L', ctrlKey: true, shiftKey: true }));
    expect(download).toHaveBeenCalledTimes(1);
  });
});

describe('session log export', () => {
  it('has the file format: versions, environment, user agent, ids, start time, entries', () => {
    const { recorder, store } = setup();
    bootWithKey(store);
    const file = buildSessionLogFile(recorder, { accountId: 'demo', deviceId: 'H5x' }, Date.UTC(2025, 0, 2, 3, 4, 5));
    expect(file).toMatchObject({
      schemaVersion: SCHEMA_VERSION,
      appVersion: '1.0.0',
      environment: 'local',
      userAgent: navigator.userAgent,
      accountId: 'demo',
      deviceId: 'H5x',
      exportedAt: '2025-01-02T03:04:05.000Z',
      dropped: 0,
      base: null,
    });
    expect(Number.isNaN(Date.parse(file.startedAt))).toBe(false);
    expect(file.entries).toHaveLength(3);
    expect(sessionLogFileName(file)).toBe('session-log-demo-2025-01-02T03-04-05-000Z.json');
  });

  it('never lets the speech key, a token or audio into the serialized file', () => {
    const { recorder, store } = setup();
    recorder.recordExternal('request', {
      method: 'POST',
      url: '/ue/userinfo',
      response: { code: 0, data: { AsrList: { app_key: SPEECH_KEY, region: 'eastasia' } } },
    });
    bootWithKey(store);
    recorder.recordExternal('recognizer', { event: 'connecting', url: `wss://speech/stt?Ocp-Apim-Subscription-Key=${SPEECH_KEY}`, authToken: 'eyJ0eXAi.tok.en' });
    recorder.recordExternal('vad', { event: 'speechEnd', audio: new Float32Array(16000) });
    recorder.recordExternal('log', { message: `retrying with ${SPEECH_KEY}` });
    const text = serializeSessionLogFile(buildSessionLogFile(recorder, { accountId: 'demo', deviceId: 'H5x' }), recorder);
    expect(text).not.toContain(SPEECH_KEY);
    expect(text).not.toContain('eyJ0eXAi.tok.en');
    expect(text).toContain('[binary 64000 bytes]');
    expect(JSON.parse(text)).toMatchObject({ schemaVersion: 1 });
  });

  it('saves through a temporary download link', () => {
    const { recorder, store } = setup();
    bootWithKey(store);
    const createUrl = vi.fn((_blob: Blob) => 'blob:log');
    Object.assign(URL, { createObjectURL: createUrl, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      expect(this.download).toMatch(/^session-log-demo-.*\.json$/);
      expect(this.href).toBe('blob:log');
    });
    downloadSessionLog(recorder, { accountId: 'demo', deviceId: 'H5x' });
    expect(click).toHaveBeenCalledTimes(1);
    expect(createUrl.mock.calls[0]?.[0]).toBeInstanceOf(Blob);
    expect(document.querySelector('a[download]')).toBeNull();
  });
});
