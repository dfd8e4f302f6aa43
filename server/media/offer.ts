/**
 * Checks a WHEP offer before any WebRTC object is created for it, so that garbage from the
 * network costs nothing and gets an error message that says what is wrong with it.
 */
export class WhepOfferError extends Error {
  override name = 'WhepOfferError';
}

export const MAX_OFFER_BYTES = 64 * 1024;

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

/** Throws WhepOfferError unless `sdp` is an offer we can answer with VP8 video and Opus audio. */
export function checkWhepOffer(sdp: unknown): asserts sdp is string {
  if (typeof sdp !== 'string' || sdp.trim() === '') throw new WhepOfferError('the offer is empty; send an SDP offer as application/sdp');
  if (Buffer.byteLength(sdp) > MAX_OFFER_BYTES) throw new WhepOfferError(`the offer is larger than ${MAX_OFFER_BYTES} bytes`);
  if (!sdp.trimStart().startsWith('v=0')) throw new WhepOfferError('the offer is not SDP: it must start with "v=0"');
  const media = sections(sdp);
  if (media.length === 0) throw new WhepOfferError('the offer has no media sections (m= lines)');
  const video = media.find((s) => s.kind === 'video' && hasCodec(s, /^VP8\/90000/i));
  const audio = media.find((s) => s.kind === 'audio' && hasCodec(s, /^opus\/48000/i));
  if (!video) throw new WhepOfferError('the offer has no video section offering VP8');
  if (!audio) throw new WhepOfferError('the offer has no audio section offering Opus');
  for (const attr of ['ice-ufrag', 'ice-pwd', 'fingerprint']) {
    if (!new RegExp(`^a=${attr}:`, 'm').test(sdp)) throw new WhepOfferError(`the offer has no a=${attr} line`);
  }
}
