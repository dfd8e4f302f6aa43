/**
 * The RIFF/WAVE header the SDK sends as the first audio message of every turn, and the
 * PCM format checks the recognizer needs (pocketsphinx's en-us model is 16 kHz mono).
 */

export interface WaveFormat {
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

export class WaveError extends Error {
  override name = 'WaveError';
}

export interface ParsedWave {
  format: WaveFormat;
  /** Samples that followed the header in the same message (usually none from the SDK). */
  data: Buffer;
}

export function isRiff(payload: Buffer): boolean {
  return payload.length >= 12 && payload.toString('latin1', 0, 4) === 'RIFF' && payload.toString('latin1', 8, 12) === 'WAVE';
}

/** Walks the chunks up to "data"; the sizes in the SDK's streaming header are placeholders, so only "fmt " is trusted. */
export function parseWaveHeader(payload: Buffer): ParsedWave {
  if (!isRiff(payload)) throw new WaveError('audio does not start with a RIFF/WAVE header');
  let offset = 12;
  let format: WaveFormat | null = null;
  while (offset + 8 <= payload.length) {
    const id = payload.toString('latin1', offset, offset + 4);
    const size = payload.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > payload.length) throw new WaveError('truncated fmt chunk');
      format = {
        formatTag: payload.readUInt16LE(body),
        channels: payload.readUInt16LE(body + 2),
        sampleRate: payload.readUInt32LE(body + 4),
        bitsPerSample: payload.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!format) throw new WaveError('data chunk before fmt chunk');
      return { format, data: payload.subarray(body) };
    }
    offset = body + size + (size % 2);
  }
  if (!format) throw new WaveError('no fmt chunk in the WAVE header');
  return { format, data: Buffer.alloc(0) };
}

export const RECOGNIZER_FORMAT: WaveFormat = { formatTag: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16 };

/** Null when the format is what the recognizer takes, otherwise why not. */
export function unsupportedFormat(format: WaveFormat): string | null {
  const want = RECOGNIZER_FORMAT;
  if (format.formatTag !== want.formatTag) return `audio format tag ${format.formatTag} (only PCM is supported)`;
  if (format.channels !== want.channels) return `${format.channels} channels (only mono is supported)`;
  if (format.bitsPerSample !== want.bitsPerSample) return `${format.bitsPerSample}-bit samples (only 16-bit is supported)`;
  if (format.sampleRate !== want.sampleRate) return `${format.sampleRate} Hz (only 16000 Hz is supported)`;
  return null;
}

/** A complete WAV file for PCM samples: the header a client sends first, in tests that play the client. */
export function makeWav(pcm: Buffer, format: WaveFormat = RECOGNIZER_FORMAT): Buffer {
  const header = Buffer.alloc(44);
  const blockAlign = (format.channels * format.bitsPerSample) / 8;
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(format.formatTag, 20);
  header.writeUInt16LE(format.channels, 22);
  header.writeUInt32LE(format.sampleRate, 24);
  header.writeUInt32LE(format.sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(format.bitsPerSample, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
