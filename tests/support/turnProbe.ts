/**
 * What a TURN credential can reach through the stand-in's relay, as another device on the
 * network would try it: a real TURN client (werift's) allocates on the relay with the
 * credential, then sends datagrams to each peer address through it and counts the ones that
 * come back from a UDP echo there. Used by the LAN test (run inside the phone's network
 * namespace: `ip netns exec NS node --import tsx tests/support/turnProbe.ts '<json>'`, which
 * prints the result as JSON) and by server/turn.test.ts (in process).
 */
import { createSocket, type Socket } from 'node:dgram';
import { pathToFileURL } from 'node:url';
import { createTurnClient } from 'werift';

export interface TurnProbeInput {
  relay: { host: string; port: number };
  username: string;
  credential: string;
  /** The UDP echoes to reach through the relay. */
  peers: { host: string; port: number }[];
  /** Datagrams sent to each peer (default 40). */
  packets?: number;
}

export interface TurnProbeResult {
  /** The allocation's error when the relay refused it (a wrong or expired credential: 401). */
  refused: string | null;
  /** Per peer: datagrams echoed back through the relay, and why sending failed if it did (403: a peer the relay forbids). */
  peers: { host: string; port: number; sent: number; echoed: number; error: string | null }[];
}

/** The relay's STUN error (e.g. "403 Forbidden IP"), else the exception's own words. */
function message(err: unknown): string {
  const response = (err as { response?: { getAttributeValue(name: string): unknown } } | null)?.response;
  const code = response?.getAttributeValue('ERROR-CODE');
  if (Array.isArray(code)) return code.join(' ').slice(0, 200);
  return (err instanceof Error ? err.message || err.name : String(err)).slice(0, 200);
}

export async function probeRelay(input: TurnProbeInput): Promise<TurnProbeResult> {
  const packets = input.packets ?? 40;
  let turn;
  try {
    turn = await createTurnClient({ address: [input.relay.host, input.relay.port], username: input.username, password: input.credential });
  } catch (err) {
    return { refused: message(err), peers: [] };
  }
  try {
    const echoed = new Map<string, Set<string>>();
    turn.onData.subscribe((data, [host, port]) => {
      const key = `${host}:${port}`;
      if (!echoed.has(key)) echoed.set(key, new Set());
      echoed.get(key)!.add(data.toString());
    });
    const peers: TurnProbeResult['peers'] = [];
    for (const peer of input.peers) {
      let sent = 0;
      let error: string | null = null;
      for (let i = 0; i < packets; i++) {
        try {
          await turn.sendData(Buffer.from(`probe-${i}`), [peer.host, peer.port]);
          sent++;
        } catch (err) {
          error = message(err);
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      peers.push({ host: peer.host, port: peer.port, sent, echoed: 0, error });
    }
    // What is on its way back has a second to arrive.
    await new Promise((r) => setTimeout(r, 1_000));
    for (const p of peers) p.echoed = echoed.get(`${p.host}:${p.port}`)?.size ?? 0;
    return { refused: null, peers };
  } finally {
    await turn.close().catch(() => undefined);
  }
}

/** A UDP echo on `host` (port chosen by the system): what a service on that address would be. */
export async function startUdpEcho(host: string): Promise<{ port: number; socket: Socket; close(): void }> {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  socket.on('message', (msg, from) => socket.send(msg, from.port, from.address));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, host, () => resolve());
  });
  return { port: socket.address().port, socket, close: () => socket.close() };
}

// As a script (inside another network namespace): the probe's input as JSON in argv, its result on stdout.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const input = JSON.parse(process.argv[2] ?? '{}') as TurnProbeInput;
  const result = await probeRelay(input);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
