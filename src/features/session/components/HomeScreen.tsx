import type { ComponentType } from 'react';
import { useAppSelector } from '../../../app/hooks.ts';
import { selectConnectPhase, selectSessionStatus, type ConnectPhase } from '../sessionSlice.ts';
import { PreSession } from './PreSession.tsx';

/** The live screen with its slots (src/live/LiveView.tsx; in the app, from the live chunk: app/liveChunk.tsx). */
export type LiveScreenComponent = ComponentType<{ covered: boolean }>;

/** Phases from which the live screen is mounted: the room exists and its stream is awaited. */
const MOUNTED_PHASES: readonly (ConnectPhase | null)[] = ['stream', 'media', 'video'];

/**
 * The one route's screen. The live screen is mounted while connecting, under the
 * opaque pre-session screen, so that its <video> is there when the stream arrives
 * and can start playing before the visitor sees it; the pre-session screen goes
 * away when the avatar is actually playing. It is mounted once start_live has
 * answered, while the stream is polled (a second or more before any media), not in
 * the Start chat tap itself: that render would hold up the start's own requests.
 */
export function HomeScreen({ live: Live }: { live: LiveScreenComponent }) {
  const status = useAppSelector(selectSessionStatus);
  const phase = useAppSelector(selectConnectPhase);
  const liveMounted = status === 'live' || (status === 'connecting' && MOUNTED_PHASES.includes(phase));
  const covered = status !== 'live';
  return (
    <>
      {liveMounted && <Live covered={covered} />}
      {covered && <PreSession />}
    </>
  );
}
