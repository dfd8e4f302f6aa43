import { useId, useState } from 'react';
import { useIntl } from 'react-intl';
import { accountMessages } from '../messages.ts';
import './AvatarPhoto.css';

interface AvatarPhotoProps {
  url: string | null | undefined;
  /** Adds a slow pulsing halo: the avatar is being woken up. */
  busy?: boolean;
  /** Called once the photo is decoded and will paint in the next frame (or has failed: the silhouette shows). */
  onShown?: () => void;
}

/** The account's avatar photo in a ring; a drawn silhouette when there is no photo or it fails to load. */
export function AvatarPhoto({ url, busy = false, onShown }: AvatarPhotoProps) {
  const intl = useIntl();
  // Ids in inline SVG are document-wide: two photos on one page must not share a gradient id.
  const gradientId = useId();
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const showPhoto = Boolean(url) && failedUrl !== url;
  return (
    <div className={busy ? 'avatar-photo avatar-photo--busy' : 'avatar-photo'}>
      <span className="avatar-photo__halo" aria-hidden="true" />
      <div className="avatar-photo__frame">
        {showPhoto && url ? (
          <img
            className="avatar-photo__img"
            src={url}
            alt={intl.formatMessage(accountMessages.photoAlt)}
            decoding="async"
            onLoad={(event) => {
              if (!onShown) return;
              // decoding="async": loaded is not yet paintable; decode() says when it is.
              const img = event.currentTarget;
              (typeof img.decode === 'function' ? img.decode() : Promise.resolve()).then(onShown, onShown);
            }}
            onError={() => {
              setFailedUrl(url);
              onShown?.();
            }}
          />
        ) : (
          <svg className="avatar-photo__placeholder" viewBox="0 0 120 120" role="img" aria-label={intl.formatMessage(accountMessages.photoAlt)}>
            <defs>
              <linearGradient id={gradientId} x1="0" y1="0" x2="0" y2="1">
                <stop offset="0" stopColor="#d9f3ee" />
                <stop offset="1" stopColor="#a9e1d6" />
              </linearGradient>
            </defs>
            <rect width="120" height="120" fill={`url(#${gradientId})`} />
            <circle cx="60" cy="48" r="22" fill="#0c8572" opacity="0.85" />
            <path d="M18 120c4-26 22-40 42-40s38 14 42 40Z" fill="#0c8572" opacity="0.85" />
          </svg>
        )}
      </div>
    </div>
  );
}
