import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useModalFocus } from '../../../app/useModalFocus.ts';

interface LayerProps {
  /** The dialog's accessible name. */
  label: string;
  className: string;
  onClose: () => void;
  onKeyDown?: (event: KeyboardEvent) => void;
  children: ReactNode;
}

/**
 * A full-screen modal layer for the image viewer and the web page sheet. It is
 * portalled to <body> because the chat log sits in a clipped, scrolling box;
 * focus handling is the app's (useModalFocus: no <dialog>.showModal, which
 * older in-app browsers implement badly). The layer swallows taps, so nothing
 * behind it is reachable while it is open.
 */
export function Layer({ label, className, onClose, onKeyDown, children }: LayerProps) {
  const ref = useRef<HTMLDivElement>(null);
  useModalFocus(ref, { onEscape: onClose });
  return createPortal(
    <div ref={ref} className={className} role="dialog" aria-modal="true" aria-label={label} tabIndex={-1} onKeyDown={onKeyDown}>
      {children}
    </div>,
    document.body,
  );
}
