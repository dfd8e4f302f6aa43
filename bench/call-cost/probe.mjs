/**
 * What bench/call-cost.mjs watches inside a page, the app's and the floor's alike, so the
 * two are measured the same way. `installProbe` runs before the page's own scripts
 * (Playwright's addInitScript, serialized: it must be self-contained); `readProbe` and
 * `readVideo` run in the page through page.evaluate.
 *
 * - long tasks: the Long Tasks API (main-thread tasks over 50 ms, wall time);
 * - the signaling frames of the call: the questions sent (`nlpmsg`), their `asr` echoes,
 *   and each reply's start and end (`nlp_ready`, `nlp_end` with `interrupted`), on the
 *   Date.now() clock;
 * - when the microphone opened (the test microphone's file starts playing then);
 * - the peer connections made, held weakly, for the avatar's inbound video statistics.
 */
// Functions passed to page.evaluate run in the browser.
/* global window, document */

export function installProbe() {
  const probe = { longTasks: [], sent: [], received: [], micOpenedAt: [], pcs: [] };
  Object.defineProperty(window, '__callCost', { value: probe });
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) probe.longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // No Long Tasks API: the figure is then missing, and the bench says so.
    probe.longTasks = null;
  }

  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      if (!String(url).includes('/ws/signaling')) return;
      this.addEventListener('message', (event) => {
        if (typeof event.data !== 'string') return;
        let frame;
        try {
          frame = JSON.parse(event.data);
        } catch {
          return;
        }
        const kind = frame.msg_type === 'command' ? frame.command : frame.msg_type;
        if (['asr', 'nlp_ready', 'nlp_end'].includes(kind)) probe.received.push({ t: Date.now(), kind, msgId: frame.msg_id ?? null, interrupted: frame.interrupted === true });
      });
    }

    send(data) {
      if (typeof data === 'string' && this.url.includes('/ws/signaling')) {
        try {
          const frame = JSON.parse(data);
          if (frame.type === 'message_text' && frame.source === 'nlpmsg') probe.sent.push({ t: Date.now(), text: frame.text, msgId: frame.data?.msg_id ?? null });
        } catch {
          // not JSON: not a signaling frame
        }
      }
      return super.send(data);
    }
  };

  const devices = navigator.mediaDevices;
  const getUserMedia = devices.getUserMedia.bind(devices);
  devices.getUserMedia = async (constraints) => {
    const stream = await getUserMedia(constraints);
    if (constraints?.audio) probe.micOpenedAt.push(Date.now());
    return stream;
  };

  const NativePc = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePc {
    constructor(config) {
      super(config);
      probe.pcs.push(new WeakRef(this));
    }
  };
}

/** The probe's records, copied out of the page; `since` (Date.now() ms) drops older signaling records. */
export function readProbe() {
  const probe = window.__callCost;
  return {
    longTasks: probe.longTasks && probe.longTasks.map((t) => ({ ...t })),
    sent: probe.sent.map((s) => ({ ...s })),
    received: probe.received.map((r) => ({ ...r })),
    micOpenedAt: [...probe.micOpenedAt],
    now: Date.now(),
    perfNow: performance.now(),
  };
}

/**
 * The avatar's video at this moment: the element's playback quality (frames presented and
 * dropped by the player) and the open peer connection's inbound video counters (frames
 * received, decoded and dropped before decoding, decode time).
 */
export async function readVideo() {
  const video = document.querySelector('video.avatar, .avatar-video video');
  const quality = video?.getVideoPlaybackQuality?.() ?? null;
  let inbound = null;
  for (const ref of window.__callCost.pcs) {
    const pc = ref.deref();
    if (!pc || pc.connectionState === 'closed') continue;
    const report = await pc.getStats();
    report.forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'video') {
        inbound = {
          framesReceived: s.framesReceived ?? null,
          framesDecoded: s.framesDecoded ?? null,
          framesDropped: s.framesDropped ?? null,
          totalDecodeTime: s.totalDecodeTime ?? null,
          frameWidth: s.frameWidth ?? null,
          frameHeight: s.frameHeight ?? null,
          decoderImplementation: s.decoderImplementation ?? null,
        };
      }
    });
  }
  return {
    total: quality?.totalVideoFrames ?? null,
    dropped: quality?.droppedVideoFrames ?? null,
    inbound,
  };
}
