/**
 * Checks a WHEP offer before any WebRTC object is created for it, so that garbage from the
 * network costs nothing and gets an error message that says what is wrong with it.
 */
export class WhepOfferError extends Error {
  override name = 'WhepOfferError';
}

/**
 * An offer without the video codec the server sends. SRS fails such an offer inside its
 * handler ("no found valid H.264 payload type") and closes the connection without an answer;
 * the HTTP route does the same with this error.
 */
export class WhepCodecError extends WhepOfferError {
  override name = 'WhepCodecError';
}

/** The room's media was closed (stop_live, a reclaim) before or while the offer was answered (404). */
export class WhepGoneError extends Error {
  override name = 'WhepGoneError';
}

/** The room already has as many viewers as it serves (503). */
export class WhepBusyError extends Error {
  override name = 'WhepBusyError';
}

/** The same limit as the HTTP body of an SDP (server/http/body.ts), which answers 413 beyond it. */
export const MAX_OFFER_BYTES = 128 * 1024;

interface MediaSection {
  kind: string;
  lines: string[];
}

function sections(sdp: string): MediaSection[] {
  const result: MediaSection[] = [];
  for (const line of sdp.split(/\r?\n/)) {
    const m = /^m=(\w+) /.exec(line);
    if (m) result.push({ kind: m[1] ?? '', lines: [] });
    else result.at(-1)?.lines.push(line);
  }
  return result;
}

function hasCodec(section: MediaSection, codec: RegExp): boolean {
  return section.lines.some((l) => /^a=rtpmap:\d+ /.test(l) && codec.test(l.slice(l.indexOf(' ') + 1)));
}

const VIDEO_CODECS = { h264: { rtpmap: /^H264\/90000/i, name: 'H.264' }, vp8: { rtpmap: /^VP8\/90000/i, name: 'VP8' } } as const;

/** Throws WhepOfferError unless `sdp` is an offer we can answer with `codec` video (H.264 by default) and Opus audio. */
export function checkWhepOffer(sdp: unknown, codec: keyof typeof VIDEO_CODECS = 'h264'): asserts sdp is string {
  if (typeof sdp !== 'string' || sdp.trim() === '') throw new WhepOfferError('the offer is empty; send an SDP offer as application/sdp');
  if (Buffer.byteLength(sdp) > MAX_OFFER_BYTES) throw new WhepOfferError(`the offer is larger than ${MAX_OFFER_BYTES} bytes`);
  if (!sdp.trimStart().startsWith('v=0')) throw new WhepOfferError('the offer is not SDP: it must start with "v=0"');
  const media = sections(sdp);
  if (media.length === 0) throw new WhepOfferError('the offer has no media sections (m= lines)');
  const wanted = VIDEO_CODECS[codec];
  const video = media.find((s) => s.kind === 'video' && hasCodec(s, wanted.rtpmap));
  const audio = media.find((s) => s.kind === 'audio' && hasCodec(s, /^opus\/48000/i));
  if (!video) throw new WhepCodecError(`the offer has no video section offering ${wanted.name}`);
  if (!audio) throw new WhepOfferError('the offer has no audio section offering Opus');
  for (const attr of ['ice-ufrag', 'ice-pwd', 'fingerprint']) {
    if (!new RegExp(`^a=${attr}:`, 'm').test(sdp)) throw new WhepOfferError(`the offer has no a=${attr} line`);
  }
}
