import { useAppSelector } from '../../../app/hooks.ts';
import { selectSessionStatus } from '../sessionSlice.ts';
import { LiveScreen, type LiveSlots } from './LiveScreen.tsx';
import { PreSession } from './PreSession.tsx';

/**
 * The one route's screen. The live screen is mounted from the first moment of
 * connecting, under the opaque pre-session screen, so that its <video> is there
 * when the stream arrives and can start playing before the visitor sees it;
 * the pre-session screen goes away when the avatar is actually playing.
 */
export function HomeScreen(slots: LiveSlots) {
  const status = useAppSelector(selectSessionStatus);
  const liveMounted = status === 'connecting' || status === 'live';
  const covered = status !== 'live';
  return (
    <>
      {liveMounted && <LiveScreen {...slots} covered={covered} />}
      {covered && <PreSession />}
    </>
  );
}
