/**
 * The media server answering one WHEP offer whose candidates name addresses it must not send
 * STUN to (issue 53), run inside a network namespace that has no way off this machine
 * (tests/integration/media-reach.test.ts: `ip netns exec NS node --import tsx
 * tests/support/stunTargets.ts '<json>'`). The media is bound as `npm start -- --lan` binds
 * it (every LAN address plus loopback: full ICE, so werift sends checks of its own); the
 * namespace's kernel counts what it sends where. It prints `ready` once the answer is made
 * and keeps the peer until it is killed.
 */
import { RTCPeerConnection, useH264, useOPUS } from 'werift';
import { mediaHostAddresses } from '../../server/lan.ts';
import { WhepPeers } from '../../server/media/whep.ts';

export interface StunTargetsInput {
  /** Candidate lines' address and port, highest priority first. */
  candidates: { address: string; port: number }[];
}

const input = JSON.parse(process.argv[2] ?? '{}') as StunTargetsInput;
const viewer = new RTCPeerConnection({ iceUseIpv4: false, iceUseIpv6: false, iceAdditionalHostAddresses: [], codecs: { video: [useH264()], audio: [useOPUS()] } });
viewer.addTransceiver('video', { direction: 'recvonly' });
viewer.addTransceiver('audio', { direction: 'recvonly' });
await viewer.setLocalDescription(await viewer.createOffer());
// Every section gets the test's candidates instead of the viewer's own (it gathered none).
const lines = input.candidates.map((c, i) => `a=candidate:${i + 1} 1 udp ${2122260223 - i * 1000} ${c.address} ${c.port} typ host`);
const sdp = viewer
  .localDescription!.sdp.split('\r\n')
  .filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates')
  .flatMap((l) => (l.startsWith('a=ice-pwd:') ? [l, ...lines] : [l]))
  .join('\r\n');
const media = new WhepPeers('room_reach', 'h264', 4, mediaHostAddresses('0.0.0.0'));
await media.answer(sdp, { fromLoopback: true });
process.stdout.write('ready\n');
process.on('SIGTERM', () => process.exit(0));
setInterval(() => undefined, 1000);
