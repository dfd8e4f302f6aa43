import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { selectToasts, toastExpired, TOAST_MS, type Notice } from '../noticesSlice.ts';
import { useNoticeText } from './useNoticeText.ts';
import './Toasts.css';

/** Toasts: short notices in the middle of the screen that go away by themselves after 2000 ms. */
export function Toasts() {
  const toasts = useAppSelector(selectToasts);
  return (
    <div className="toasts">
      {toasts.map((toast) => (
        <Toast key={toast.key} notice={toast} />
      ))}
    </div>
  );
}

function Toast({ notice }: { notice: Notice }) {
  const dispatch = useAppDispatch();
  const text = useNoticeText()(notice.message);
  // Each toast owns its timer from the moment it appears, so a new toast never extends an older one.
  useEffect(() => {
    const timer = setTimeout(() => dispatch(toastExpired(notice.key)), TOAST_MS);
    return () => clearTimeout(timer);
  }, [dispatch, notice.key]);
  return (
    <div role="status" className="toast">
      {text}
    </div>
  );
}
