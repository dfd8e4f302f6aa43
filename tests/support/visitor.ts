/**
 * One visitor's session against a running stand-in, at the Node level and with
 * real media, as the client does it: account, route, start_live, the streams
 * poll, the signaling socket and a WHEP peer (werift) that must receive the
 * avatar's video, then a typed question that must be answered with speech (the
 * avatar's Opus audio carries the reply's voice, not only its text), then the end
 * (DELETE on the WHEP session, close_webrtc, stop_live).
 *
 * The abuse suite runs it while each hostile input runs, and
 * bench/standin-load.mjs runs many at once; each step that fails says which.
 */
import { readFileSync } from 'node:fs';
import * as sdk from 'microsoft-cognitiveservices-speech-sdk';
import { RTCPeerConnection, useH264, useOPUS } from 'werift';
import { isCommand, SignalingClient, type Frame } from '../../server/http/testkit.ts';

/**
 * A receive-only werift peer with its gathered offer, as a browser offers it: H.264 and
 * Opus (the stand-in, like SRS, closes the connection of an offer without H.264).
 */
export async function viewerOffer(): Promise<{ pc: RTCPeerConnection; sdp: string }> {
  const pc = new RTCPeerConnection({
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    codecs: { video: [useH264()], audio: [useOPUS()] },
  });
  pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== 'complete') await pc.iceGatheringStateChange.watch((s) => s === 'complete');
  return { pc, sdp: pc.localDescription!.sdp };
}

export interface VisitorOptions {
  /** Default: the first question of docs/contract.md C10. */
  question?: string;
  deviceId?: string;
  /** For the whole session up to the answer. Default 30 s. */
  timeoutMs?: number;
  /**
   * A voice turn instead of a typed question: this 16 kHz mono WAV is recognised by the
   * stand-in's speech service through the Speech SDK, as the client does, and the
   * recognised sentence goes up as a voice turn (PROTOCOL.md).
   */
  voiceWav?: string;
  /** Called once the question is answered, before the session ends: keeps it live meanwhile. */
  hold?: () => Promise<void>;
}

export interface VisitorResult {
  roomId: string;
  /** From Start (the account call) to the first video packet. */
  firstFrameMs: number;
  /** From the question to the first `tts` part of its reply. */
  answerMs: number;
  /** From the question to the avatar's voice saying it (the first audio packet of speech). */
  spokenMs: number;
  /** The first sentence of the reply. */
  text: string;
  /** The question asked: for a voice turn, as the speech service recognised it. */
  question: string;
}

const elapsed = (since: number): number => Math.round(performance.now() - since);

/**
 * An Opus packet at least this large is speech: the stand-in's encoder (32 kbit/s, 20 ms,
 * VBR) makes 20-39 byte packets of its silence and mostly 80 or more of espeak-ng's speech.
 */
const SPEECH_PAYLOAD_BYTES = 60;
/** The reply's voice must be heard for this many packets (200 ms), not a blip. */
const SPEECH_PACKETS = 10;
/** How long after its text the reply's voice may start (the stand-in sends the text as it starts it). */
const SPEECH_AFTER_TEXT_MS = 3_000;

class StepError extends Error {}

async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof StepError) throw err;
    // fetch's own message says only "fetch failed": the network error is its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new StepError(`visitor: ${name} failed: ${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`);
  }
}

async function postJson(url: string, body: unknown, form = false): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    ...(form
      ? { body: new URLSearchParams(body as Record<string, string>) }
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (await res.json()) as Record<string, unknown>;
}

/** The samples of a 16-bit PCM WAV: the bytes of its data chunk. */
function wavData(path: string): Buffer {
  const wav = readFileSync(path);
  for (let at = 12; at + 8 <= wav.length; ) {
    const size = wav.readUInt32LE(at + 4);
    if (wav.toString('ascii', at, at + 4) === 'data') return wav.subarray(at + 8, at + 8 + size);
    at += 8 + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

/** The first sentence the stand-in's speech service recognises in `wavPath`. */
async function recognize(base: string, wavPath: string, timeoutMs: number): Promise<string> {
  const config = sdk.SpeechConfig.fromHost(new URL(base.replace(/^http/, 'ws')), 'demo-speech-key');
  config.speechRecognitionLanguage = 'en-US';
  const push = sdk.AudioInputStream.createPushStream(sdk.AudioStreamFormat.getWaveFormatPCM(16000, 16, 1));
  const pcm = wavData(wavPath);
  push.write(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength) as ArrayBuffer);
  push.close();
  const recognizer = new sdk.SpeechRecognizer(config, sdk.AudioConfig.fromStreamInput(push));
  try {
    return await within(
      new Promise<string>((resolve, reject) => {
        recognizer.recognizeOnceAsync(
          (result) => (result.reason === sdk.ResultReason.RecognizedSpeech ? resolve(result.text) : reject(new Error(`no speech recognised (reason ${result.reason})`))),
          (err) => reject(new Error(err)),
        );
      }),
      timeoutMs,
      'recognition',
    );
  } finally {
    recognizer.close();
  }
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function visitSession(base: string, opts: VisitorOptions = {}): Promise<VisitorResult> {
  let question = opts.question ?? 'where is the nearest store';
  const deviceId = opts.deviceId ?? `H5visitor${Math.random().toString(36).slice(2, 10)}`;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = performance.now() + timeoutMs;
  const left = (): number => Math.max(1, Math.round(deadline - performance.now()));
  const started = performance.now();
  const cleanup: (() => unknown)[] = [];

  try {
    const info = await step('userinfo', () => postJson(`${base}/ue/userinfo`, { uid: 'demo', version: '1.0.0' }, true));
    if (!(info.data as Record<string, unknown> | undefined)?.uid) throw new StepError('visitor: userinfo answered no valid account');
    const route = await step('get/route', () => postJson(`${base}/get/route`, { uid: 'demo', serverName: 'standin' }));
    const { websockLink, srsLink } = route.data as { websockLink: string; srsLink: string };
    const start = await step('start_live', () => postJson(`${base}/start_live`, { app_id: 'demo', uid: 'demo', device_id: deviceId }));
    if (start.status !== 'success') throw new StepError(`visitor: start_live refused: ${JSON.stringify(start)}`);
    const roomId = start.room_id as string;
    cleanup.push(() => postJson(`${base}/stop_live`, { room_id: roomId, device_id: deviceId }).catch(() => undefined));

    // The client polls every 400 ms until the stream publishes, and connects signaling meanwhile.
    const signaling = await step('signaling', async () => {
      const client = await SignalingClient.connect(websockLink);
      cleanup.push(() => client.close());
      client.send({ type: 'offer_2', room_id: roomId, app_id: 'demo', deviceId });
      await client.next(isCommand('asr_ready'), left());
      return client;
    });
    await step('streams poll', async () => {
      for (;;) {
        const res = await fetch(`${srsLink}/api/v1/streams/?count=100`, { signal: AbortSignal.timeout(5_000) });
        const list = (await res.json()) as { streams: { name: string; publish: { active: boolean } }[] };
        if (list.streams.find((s) => s.name === roomId)?.publish.active) return;
        if (left() <= 1) throw new Error('the stream never turned active');
        await new Promise((r) => setTimeout(r, 400));
      }
    });

    /** performance.now() of each audio packet of speech. */
    const speech: number[] = [];
    const firstFrameMs = await step('WHEP', async () => {
      const { pc, sdp } = await within(viewerOffer(), left(), 'the WHEP offer');
      cleanup.push(() => pc.close());
      const firstVideo = new Promise<number>((resolve) => {
        pc.onTrack.subscribe((track) => {
          if (track.kind === 'audio') {
            track.onReceiveRtp.subscribe((rtp) => {
              if (rtp.payload.length >= SPEECH_PAYLOAD_BYTES) speech.push(performance.now());
            });
            return;
          }
          if (track.kind !== 'video') return;
          const { unSubscribe } = track.onReceiveRtp.subscribe(() => {
            unSubscribe();
            resolve(elapsed(started));
          });
        });
      });
      const res = await fetch(`${srsLink}/rtc/v1/whep/?app=live&stream=${roomId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/sdp' },
        body: sdp,
        signal: AbortSignal.timeout(left()),
      });
      if (res.status !== 201) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
      const location = new URL(res.headers.get('location') ?? '', srsLink).href;
      cleanup.push(() => fetch(location, { method: 'DELETE' }).catch(() => undefined));
      await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });
      return within(firstVideo, left(), 'the first video packet');
    });

    const { answerMs, spokenMs, text } = await step('question', async () => {
      const from = signaling.frames.length;
      const msgId = `u-${Date.now()}`;
      const asked = performance.now();
      if (opts.voiceWav) {
        // The recogniser's sentence is the question, as the client sends it.
        question = (await recognize(base, opts.voiceWav, left())).replace(/[.?!]$/, '').toLowerCase();
        // The voice turn in the specification's order (PROTOCOL.md): the wording, asr_end, nlpmsg, end_point.
        signaling.send({ type: 'message_text', room_id: roomId, source: 'asrcallback', text: question, end_point: false, data: { msg_id: msgId, lang: 'en' } });
        await signaling.next((f: Frame) => isCommand('asr_end')(f) && f.msg_id === msgId, left(), from);
      }
      signaling.send({ type: 'message_text', room_id: roomId, source: 'nlpmsg', text: question, data: { msg_id: msgId, lang: 'en' } });
      if (opts.voiceWav) signaling.send({ type: 'message_text', room_id: roomId, source: 'asrcallback', text: question, end_point: true, data: { msg_id: msgId, lang: 'en' } });
      const first = await signaling.next((f: Frame) => f.msg_type === 'tts' && typeof f.text === 'string', left(), from);
      const answerMs = elapsed(asked);
      // The text goes out when the avatar starts to speak it, or alone when its synthesis failed
      // or waited too long (the stand-in then sends it silently): only the audio tells.
      const textAt = performance.now();
      const voiced = (): boolean => speech.filter((t) => t >= asked).length >= SPEECH_PACKETS;
      while (!voiced() && performance.now() - textAt < Math.min(SPEECH_AFTER_TEXT_MS, left())) await new Promise((r) => setTimeout(r, 20));
      if (!voiced()) throw new Error(`the answer "${String(first.text).slice(0, 60)}" came without the avatar's voice (${speech.filter((t) => t >= asked).length} audio packets of speech)`);
      // And the voice is the first sentence's: its text goes out as its voice starts, the next
      // sentence's only once it has played, seconds later. A later text already here means the
      // first went out silently (its synthesis refused) and the voice heard is a later sentence's.
      const later = signaling.frames.slice(from).filter((f: Frame) => f.msg_type === 'tts' && f.msg_id === first.msg_id && typeof f.text === 'string' && f !== first);
      if (later.length > 0) throw new Error(`the answer's first sentence "${String(first.text).slice(0, 60)}" went out without the avatar's voice; the voice came with "${String(later[0]!.text).slice(0, 60)}"`);
      return { answerMs, spokenMs: Math.round(speech.find((t) => t >= asked)! - asked), text: first.text as string };
    });
    await opts.hold?.();
    signaling.send({ type: 'close_webrtc', room_id: roomId });
    return { roomId, firstFrameMs, answerMs, spokenMs, text, question };
  } finally {
    for (const f of cleanup.reverse()) await f();
  }
}
