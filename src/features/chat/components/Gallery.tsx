import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { chatMessages } from '../messages.ts';
import { GALLERY_TILES, isHttpUrl, type GalleryImage } from '../model.ts';
import { BrokenImageIcon } from './icons.tsx';
import { ImageViewer } from './ImageViewer.tsx';
import './parts.css';

/** Typed loosely so it takes its {index} and {count} values (react-intl types defineMessages without values). */
const IMAGE_LABEL: MessageDescriptor = chatMessages.image;

/**
 * A message's images as one gallery, each with its index. Every tile has a
 * fixed box (aspect-ratio) so an image that loads late never moves the log.
 */
export function Gallery({ images }: { images: GalleryImage[] }) {
  const intl = useIntl();
  const [open, setOpen] = useState<number | null>(null);
  const [broken, setBroken] = useState<ReadonlySet<string>>(() => new Set());
  // The reducer accepts only http(s); this is the last look before an src.
  const safe = images.filter((image) => isHttpUrl(image.url));
  const count = safe.length;
  if (count === 0) return null;
  const layout = count === 1 ? 'one' : count === 2 || count === 4 ? 'two' : 'three';
  // Nine tiles at most; the last one says how many more the viewer holds.
  const tiles = safe.slice(0, GALLERY_TILES);
  const more = count - tiles.length;

  return (
    <div className={`gallery gallery--${layout}`}>
      {tiles.map((image, i) => (
        <button
          key={image.index}
          type="button"
          className="gallery__item"
          onClick={() => setOpen(i)}
          aria-label={intl.formatMessage(IMAGE_LABEL, { index: image.index, count })}
        >
          {broken.has(image.url) ? (
            <span className="gallery__broken">
              <BrokenImageIcon />
            </span>
          ) : (
            <img
              className="gallery__img"
              src={image.url}
              alt=""
              loading="lazy"
              decoding="async"
              draggable={false}
              referrerPolicy="no-referrer"
              onError={() => setBroken((prev) => new Set(prev).add(image.url))}
            />
          )}
          {count > 1 && (
            <span className="gallery__index" aria-hidden="true">
              {image.index}
            </span>
          )}
          {more > 0 && i === tiles.length - 1 && (
            <span className="gallery__more" aria-hidden="true">
              {more}
            </span>
          )}
        </button>
      ))}
      {open !== null && <ImageViewer images={safe} start={open} onClose={() => setOpen(null)} />}
    </div>
  );
}
