import { useAppSelector } from '../../../app/hooks.ts';
import { selectAccountInfo } from '../../account/accountSlice.ts';
import './Background.css';

/**
 * The account's background (an image or a looping video) behind the avatar.
 * Decorative: hidden from assistive technology. Without one, a brand gradient.
 */
export function Background() {
  const background = useAppSelector(selectAccountInfo)?.background ?? null;
  if (background?.kind === 'video') {
    return (
      <div className="stage-bg" aria-hidden="true">
        <video className="stage-bg__media" src={background.url} autoPlay muted loop playsInline preload="auto" />
      </div>
    );
  }
  if (background?.kind === 'image') {
    return (
      <div className="stage-bg" aria-hidden="true">
        <img className="stage-bg__media" src={background.url} alt="" decoding="async" />
      </div>
    );
  }
  return <div className="stage-bg stage-bg--plain" aria-hidden="true" />;
}
