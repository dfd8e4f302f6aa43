/**
 * Loopback UDP port an encoder sends its RTP to. Anything on the machine can send to a loopback
 * port, so a packet is accepted only if it looks like RTP from our encoder: version 2, not RTCP,
 * and carrying the SSRC we told ffmpeg to use.
 */
import { createSocket } from 'node:dgram';
import { createLogger } from '../log.ts';

const log = createLogger('media');

export interface RtpSocket {
  readonly port: number;
  close(): void;
}

const RTP_HEADER_BYTES = 12;

export function isOurRtp(packet: Buffer, ssrc: number): boolean {
  if (packet.length < RTP_HEADER_BYTES) return false;
  const first = packet[0] ?? 0;
  const second = packet[1] ?? 0;
  if (first >> 6 !== 2) return false;
  // ffmpeg sends its RTCP sender reports to the same port; packet types 200..204 are RTCP.
  if (second >= 200 && second <= 204) return false;
  return packet.readUInt32BE(8) === ssrc >>> 0;
}

export async function openRtpSocket(ssrc: number, onPacket: (packet: Buffer) => void): Promise<RtpSocket> {
  const socket = createSocket('udp4');
  socket.on('message', (packet, rinfo) => {
    if (rinfo.address !== '127.0.0.1' || !isOurRtp(packet, ssrc)) return;
    onPacket(packet);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ address: '127.0.0.1', port: 0 }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  // After binding, a socket error (rare on loopback) must not crash the process.
  socket.on('error', (err) => log.warn('rtp socket error', { error: err.message }));
  let closed = false;
  return {
    port: socket.address().port,
    close() {
      if (closed) return;
      closed = true;
      socket.close();
    },
  };
}
