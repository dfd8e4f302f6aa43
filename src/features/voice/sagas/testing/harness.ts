/**
 * Shared steps of the voice saga tests: a live session on the real root saga with
 * fake services (the voice ones from testing/fakes.ts), in English, and helpers to read
 * the frames the client sent and to answer as the server.
 */
import { DEMO_INFO } from '../../../../sagas/testing/fakes.ts';
import { setupSagas, type Harness } from '../../../../sagas/testing/harness.ts';
import { goLive } from '../../../../sagas/testing/live.ts';

export interface VoiceHarness extends Harness {
  /** Frames the client sent after joining (offer_2 and say_hello left out). */
  sent(): Record<string, unknown>[];
  /** Frames of one type (and source, for message_text). */
  sentOf(type: string, source?: string): Record<string, unknown>[];
  /** Server frames, delivered like the network would, then the sagas run. */
  server(...frames: unknown[]): Promise<void>;
  noticeIds(): string[];
}

export async function liveVoiceHarness(options: { asr?: boolean } = {}): Promise<VoiceHarness> {
  const h = setupSagas({ storage: { lang: 'en' } }, (f) => {
    if (options.asr === false) {
      f.account.fetchUserInfo.mockResolvedValue({ valid: true, raw: { uid: 'noasr', a: 1, b: 2 }, info: { ...DEMO_INFO, asr: null } });
    }
  });
  let ids = 0;
  h.platform.randomUUID.mockImplementation(() => `v-${++ids}`);
  await h.flush();
  await goLive(h);
  const socket = () => h.sockets.at(-1)!;
  const sent = () => socket().sent.filter((f) => f.type !== 'offer_2' && f.type !== 'say_hello');
  return {
    ...h,
    sent,
    sentOf: (type, source) => sent().filter((f) => f.type === type && (source === undefined || f.source === source)),
    async server(...frames) {
      for (const frame of frames) socket().serverSend(frame);
      await h.flush();
    },
    noticeIds() {
      const { toasts, alert } = h.state().notices;
      return [...toasts, ...(alert ? [alert] : [])].map((n) => ('id' in n.message ? n.message.id : n.message.text));
    },
  };
}
