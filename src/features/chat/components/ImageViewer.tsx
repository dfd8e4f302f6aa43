import { useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { chatMessages } from '../messages.ts';
import type { GalleryImage } from '../model.ts';
import { ChevronIcon, CloseIcon } from './icons.tsx';
import { Layer } from './Layer.tsx';
import './ImageViewer.css';

const IMAGE_LABEL: MessageDescriptor = chatMessages.image;

/** A horizontal swipe longer than this changes the image; a downward one this long closes. */
const SWIPE_PX = 56;
const DISMISS_PX = 110;

interface ImageViewerProps {
  images: GalleryImage[];
  /** 0-based position to open at. */
  start: number;
  onClose: () => void;
}

/** One message's images full screen: swipe or arrows to move, swipe down, Escape or Close to leave. */
export function ImageViewer({ images, start, onClose }: ImageViewerProps) {
  const intl = useIntl();
  const [at, setAt] = useState(() => Math.min(Math.max(start, 0), images.length - 1));
  const stage = useRef<HTMLImageElement>(null);
  const drag = useRef<{ id: number; x: number; y: number; dx: number; dy: number } | null>(null);
  const image = images[at];
  if (!image) return null;
  const count = images.length;
  const go = (delta: number) => setAt((i) => Math.min(Math.max(i + delta, 0), count - 1));

  // The image follows the finger directly (no re-render per pointer move).
  const place = (dx: number, dy: number) => {
    const el = stage.current;
    if (!el) return;
    el.style.transform = dx === 0 && dy === 0 ? '' : `translate(${dx}px, ${Math.max(dy, 0)}px)`;
    el.style.opacity = dy > 0 ? String(Math.max(0.4, 1 - dy / 400)) : '';
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0 || (event.target as Element).closest('button')) return;
    event.currentTarget.setPointerCapture?.(event.pointerId);
    drag.current = { id: event.pointerId, x: event.clientX, y: event.clientY, dx: 0, dy: 0 };
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.id !== event.pointerId) return;
    d.dx = event.clientX - d.x;
    d.dy = event.clientY - d.y;
    place(d.dx, d.dy);
  };
  const onPointerEnd = (event: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.id !== event.pointerId) return;
    drag.current = null;
    place(0, 0);
    if (event.type === 'pointercancel') return;
    const horizontal = Math.abs(d.dx) > Math.abs(d.dy);
    if (horizontal && d.dx <= -SWIPE_PX) go(1);
    else if (horizontal && d.dx >= SWIPE_PX) go(-1);
    else if (!horizontal && d.dy >= DISMISS_PX) onClose();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'ArrowRight') go(1);
    if (event.key === 'ArrowLeft') go(-1);
  };

  return (
    <Layer
      className="viewer"
      label={intl.formatMessage(IMAGE_LABEL, { index: at + 1, count })}
      onClose={onClose}
      onKeyDown={onKeyDown}
    >
      <div
        className="viewer__stage"
        data-draggable
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
      >
        <img ref={stage} key={image.url + at} className="viewer__image" src={image.url} alt="" draggable={false} decoding="async" />
      </div>
      <div className="viewer__bar">
        <span className="viewer__count" aria-hidden="true">
          <span>{at + 1}</span>
          <span className="viewer__total">{count}</span>
        </span>
        <button type="button" className="viewer__close" onClick={onClose} aria-label={intl.formatMessage(chatMessages.close)}>
          <CloseIcon />
        </button>
      </div>
      {count > 1 && (
        <>
          <button
            type="button"
            className="viewer__nav viewer__nav--prev"
            onClick={() => go(-1)}
            disabled={at === 0}
            aria-label={intl.formatMessage(chatMessages.previousImage)}
          >
            <ChevronIcon direction="left" />
          </button>
          <button
            type="button"
            className="viewer__nav viewer__nav--next"
            onClick={() => go(1)}
            disabled={at === count - 1}
            aria-label={intl.formatMessage(chatMessages.nextImage)}
          >
            <ChevronIcon direction="right" />
          </button>
        </>
      )}
    </Layer>
  );
}
