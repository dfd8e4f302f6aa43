/**
 * A realistic session for replay tests and the CLI fixture: the actions the
 * sagas dispatch, in order, with the external entries services record, and
 * plausible time gaps between them.
 */
import type { Dispatch, UnknownAction } from '@reduxjs/toolkit';
import { makeStore } from '../../app/store.ts';
import { accountLoaded, bootStarted } from '../account/accountSlice.ts';
import { langInitialized } from '../locale/localeSlice.ts';
import { alertDismissed, alertShown, toastExpired, toastShown } from '../notices/noticesSlice.ts';
import * as session from '../session/sessionSlice.ts';
import { createSessionLogMiddleware } from '../sessionLog/middleware.ts';
import type { SessionRecorder } from '../sessionLog/recorder.ts';
import { deriveStats } from '../stats/derive.ts';
import { statsPanelEnabled, statsSampled, statsSamplingStarted, statsSamplingStopped } from '../stats/statsSlice.ts';
import first from '../stats/fixtures/chrome-first.json';
import steady from '../stats/fixtures/chrome-steady.json';
import reconnected from '../stats/fixtures/chrome-reconnected.json';
import afterReconnect from '../stats/fixtures/chrome-after-reconnect.json';

export const SPEECH_KEY = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';

/** A live store as the app builds it (no sagas) with the session log middleware in front of dispatch. */
export function liveStore(recorder: SessionRecorder) {
  const store = makeStore();
  const dispatch = createSessionLogMiddleware(recorder)({ getState: store.getState, dispatch: store.dispatch as Dispatch })(
    store.dispatch as (action: unknown) => unknown,
  ) as (action: UnknownAction) => unknown;
  return { store, dispatch };
}

/** A whole session, as the sagas would dispatch it: boot, start, live with stats, a media drop, alerts, the end. */
export function playSession(
  dispatch: (a: UnknownAction) => unknown,
  recorder: SessionRecorder,
  wait: (ms: number) => void = () => {},
) {
  dispatch(bootStarted({ userId: 'demo', deviceId: 'H5f00dfeed0000000000000000000001' }));
  dispatch(langInitialized('en'));
  // The visitor opened the link with ?showBitrate=1.
  dispatch(statsPanelEnabled());
  wait(84);
  recorder.recordExternal('request', {
    method: 'POST',
    url: '/ue/userinfo',
    status: 200,
    ms: 84,
    outcome: 'ok',
    response: { code: 0, data: { AsrList: { app_key: SPEECH_KEY, region: 'eastasia' } } },
  });
  dispatch(accountLoaded({ photoUrl: '/p.png', title: 'Aria', label: null, background: null, asr: { appKey: SPEECH_KEY, region: 'eastasia' } }));
  wait(3200);
  dispatch(session.startRequested());
  wait(400);
  dispatch(toastShown({ id: 'error.pleaseWait' }));
  recorder.recordExternal('request', { method: 'POST', url: '/get/route', status: 200, ms: 62, outcome: 'ok' });
  dispatch(session.connectPhaseReached('startLive'));
  wait(130);
  recorder.recordExternal('request', { method: 'POST', url: '/start_live', status: 200, ms: 130, outcome: 'ok' });
  dispatch(session.liveStarted({ roomId: 'room-42' }));
  dispatch(session.connectPhaseReached('stream'));
  dispatch(session.signalingStateChanged('connecting'));
  wait(40);
  dispatch(session.signalingStateChanged('open'));
  recorder.recordExternal('signaling', { dir: 'out', type: 'offer_2' });
  wait(900);
  recorder.recordExternal('signaling', { dir: 'in', msg_type: 'command', command: 'asr_ready' });
  dispatch(session.connectPhaseReached('media'));
  recorder.recordExternal('request', { method: 'POST', url: '/rtc/v1/whep/?app=live&stream=room-42', status: 201, ms: 95, outcome: 'ok' });
  dispatch(session.mediaStateChanged('connecting'));
  wait(350);
  recorder.recordExternal('ice', { state: 'connected' });
  dispatch(session.mediaStateChanged('connected'));
  dispatch(session.connectPhaseReached('video'));
  wait(300);
  dispatch(session.videoCanPlay());
  dispatch(session.videoPlayBlocked());
  wait(1800);
  dispatch(session.videoPlaying());
  dispatch(statsSamplingStarted());
  const a = deriveStats(null, first, 0);
  dispatch(statsSampled(a.sample));
  wait(5000);
  dispatch(statsSampled(deriveStats(a.counters, steady, 5000).sample));
  wait(2000);
  recorder.recordExternal('ice', { state: 'disconnected' });
  dispatch(session.mediaStateChanged('disconnected'));
  wait(2000);
  dispatch(session.mediaReconnectStarted());
  wait(600);
  dispatch(session.mediaStateChanged('connected'));
  wait(400);
  const c = deriveStats(null, reconnected, 10000);
  dispatch(statsSampled(c.sample));
  wait(5000);
  dispatch(statsSampled(deriveStats(c.counters, afterReconnect, 15000).sample));
  wait(1200);
  dispatch(alertShown({ text: 'no avatar available' }));
  wait(1500);
  dispatch(alertDismissed());
  dispatch({ type: toastShown.type, payload: { key: 'k-1', kind: 'toast', message: { id: 'error.noVoice' } } });
  wait(2000);
  dispatch(toastExpired('k-1'));
  wait(3000);
  recorder.recordExternal('ice', { state: 'failed' });
  recorder.recordExternal('error', { feature: 'media', message: 'ICE failed' });
  dispatch(alertShown({ id: 'error.iceError' }));
  dispatch(session.sessionEnding('iceError'));
  dispatch(statsSamplingStopped());
  wait(150);
  recorder.recordExternal('request', { method: 'POST', url: '/stop_live', status: 200, ms: 150, outcome: 'ok' });
  dispatch(session.signalingStateChanged('closed'));
  dispatch(session.mediaStateChanged('closed'));
  dispatch(session.sessionEnded());
}
