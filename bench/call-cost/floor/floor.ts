/**
 * The floor of bench/call-cost.mjs: the least a hands-free call can cost a browser. A bare
 * page (never part of the product build) that does only what a call must, against the
 * same stand-in as the app: the same account (its background shown plainly), the same
 * room and signaling (route, start_live, offer_2, the greeting once the video plays), the
 * same WHEP video and audio playing, and the same microphone recognized continuously by
 * the Speech SDK, each recognized sentence sent as the question (`nlpmsg`).
 *
 * To measure only what the app adds, the parts that are the call itself are the app's own:
 * the capture worklet (the microphone resampled to 16 kHz PCM, without voice detection or
 * echo gate) and the recognizer adapter over the Speech SDK (src/features/voice/services/speechRecognizer.ts).
 * Everything else the app does (React, the store and its sagas, the chat log, the voice
 * detector, the stats sampler, the session log, the wake lock…) is not here.
 *
 * Driven by the bench through window.__floor: start() goes live, startCall() opens the
 * microphone and the recognizer, end() ends the session as the app does.
 */
import { CAPTURE_WORKLET_URL, startCapture, type Capture } from '../../../src/features/voice/workers/capture.client.ts';
import { createRecognizer, type Recognizer } from '../../../src/features/voice/services/speechRecognizer.ts';

const params = new URLSearchParams(location.search);
const UID = params.get('uid') ?? 'demo';
const LANG = 'en';
const DEVICE_ID = `bench-floor-${Math.random().toString(36).slice(2)}`;
/** The spec's stream poll cadence. */
const POLL_MS = 400;
/** The app's segmentation silence at call start (src/features/voice/sagas/callState.ts). */
const SEGMENTATION_SILENCE_MS = 1000;

interface FloorState {
  roomId: string | null;
  live: boolean;
  calling: boolean;
  sent: number;
  error: string | null;
}

const state: FloorState = { roomId: null, live: false, calling: false, sent: 0, error: null };
const video = document.querySelector<HTMLVideoElement>('video.avatar')!;
const audio = document.querySelector<HTMLAudioElement>('audio.voice')!;
const backdrop = document.querySelector<HTMLImageElement>('img.backdrop')!;

let pc: RTCPeerConnection | null = null;
let ws: WebSocket | null = null;
let whepUrl: string | null = null;
let asr: { appKey: string; region: string } | null = null;
let call: { context: AudioContext; stream: MediaStream; capture: Capture; recognizer: Recognizer } | null = null;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function postJson<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.json()) as T;
}

interface AccountAnswer {
  data?: { Background?: unknown; AsrList?: { app_key: string; region: string } };
}
interface RouteAnswer {
  data: { websockLink: string; srsLink: string };
}
interface StreamsAnswer {
  streams?: { name: string; publish?: { active?: boolean } }[];
}

function send(frame: Record<string, unknown>): void {
  ws?.send(JSON.stringify({ ...frame, room_id: state.roomId, app_id: UID, deviceId: DEVICE_ID }));
}

function gathered(connection: RTCPeerConnection): Promise<void> {
  return new Promise((resolve) => {
    if (connection.iceGatheringState === 'complete') return resolve();
    connection.addEventListener('icegatheringstatechange', () => connection.iceGatheringState === 'complete' && resolve());
  });
}

async function start(): Promise<void> {
  const form = new URLSearchParams({ uid: UID, version: '1.0.0' });
  const info = ((await (await fetch('/ue/userinfo', { method: 'POST', body: form })).json()) as AccountAnswer).data;
  if (!info?.AsrList) throw new Error('the account has no speech settings');
  asr = { appKey: info.AsrList.app_key, region: info.AsrList.region };
  if (typeof info.Background === 'string') backdrop.src = info.Background;

  const route = (await postJson<RouteAnswer>('/get/route', { uid: UID, serverName: 'standin' })).data;
  const starting = postJson<{ room_id?: string }>('/start_live', { app_id: UID, uid: UID, device_id: DEVICE_ID });
  pc = new RTCPeerConnection({ iceServers: [] });
  const stream = new MediaStream();
  pc.addEventListener('track', (event) => {
    stream.addTrack(event.track);
    video.srcObject = stream;
    audio.srcObject = stream;
  });
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  const offer = (async () => {
    await pc!.setLocalDescription(await pc!.createOffer());
    await gathered(pc!);
    return pc!.localDescription!.sdp;
  })();
  const { room_id: roomId } = await starting;
  if (!roomId) throw new Error('start_live gave no room');
  state.roomId = roomId;

  let greeted = false;
  const greet = () => {
    if (greeted || !state.live) return;
    greeted = true;
    send({ type: 'say_hello', data: { lang: LANG } });
  };
  const joined = new Promise<void>((resolve, reject) => {
    ws = new WebSocket(route.websockLink);
    ws.addEventListener('open', () => send({ type: 'offer_2' }));
    ws.addEventListener('message', (message) => {
      if ((JSON.parse(String(message.data)) as { command?: string }).command === 'asr_ready') resolve();
    });
    ws.addEventListener('error', () => reject(new Error('the signaling socket failed')));
  });
  for (;;) {
    const polled = performance.now();
    const { streams = [] } = (await (await fetch(`${route.srsLink}/api/v1/streams/?count=100`)).json()) as StreamsAnswer;
    if (streams.some((s) => s.name === roomId && s.publish?.active === true)) break;
    await sleep(Math.max(0, POLL_MS - (performance.now() - polled)));
  }
  await joined;
  const answer = await fetch(`${route.srsLink}/rtc/v1/whep/?app=live&stream=${encodeURIComponent(roomId)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp' },
    body: await offer,
  });
  if (answer.status !== 201) throw new Error(`WHEP answered ${answer.status}`);
  whepUrl = new URL(answer.headers.get('location')!, route.srsLink).href;
  await pc.setRemoteDescription({ type: 'answer', sdp: await answer.text() });
  await new Promise<void>((resolve) => video.addEventListener('playing', () => resolve(), { once: true }));
  await audio.play();
  state.live = true;
  greet();
}

async function startCall(): Promise<void> {
  if (!asr) throw new Error('not live');
  const context = new AudioContext({ latencyHint: 'interactive' });
  await context.resume();
  const stream = await navigator.mediaDevices.getUserMedia({
    audio: { channelCount: 1, sampleRate: { ideal: 16_000 }, noiseSuppression: true, echoCancellation: true, autoGainControl: true },
  });
  await context.audioWorklet.addModule(CAPTURE_WORKLET_URL);
  const recognizer = await createRecognizer({
    lang: LANG,
    host: `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`,
    key: asr.appKey,
    region: asr.region,
    segmentationSilenceMs: SEGMENTATION_SILENCE_MS,
  });
  recognizer.on('recognized', (text) => {
    state.sent += 1;
    send({ type: 'message_text', source: 'nlpmsg', text, data: { msg_id: `floor-${state.sent}`, lang: LANG } });
  });
  recognizer.on('canceled', (reason, details) => {
    if (reason === 'error') state.error = `recognition canceled: ${details}`;
  });
  await recognizer.start();
  const capture = startCapture({ context, stream, vadPort: null, onPcm16: (pcm) => recognizer.write(pcm) });
  call = { context, stream, capture, recognizer };
  state.calling = true;
}

async function end(): Promise<void> {
  if (call) {
    call.capture.stop();
    call.stream.getTracks().forEach((track) => track.stop());
    await call.recognizer.stop();
    await call.context.close();
    call = null;
    state.calling = false;
  }
  send({ type: 'close_webrtc' });
  ws?.close();
  if (whepUrl) await fetch(whepUrl, { method: 'DELETE' }).catch(() => {});
  pc?.close();
  if (state.roomId) await postJson('/stop_live', { room_id: state.roomId, device_id: DEVICE_ID });
  state.live = false;
}

const guard =
  <T>(step: () => Promise<T>) =>
  () =>
    step().catch((error: unknown) => {
      state.error = String(error);
      throw error;
    });

Object.assign(window, { __floor: { state, start: guard(start), startCall: guard(startCall), end: guard(end) } });
