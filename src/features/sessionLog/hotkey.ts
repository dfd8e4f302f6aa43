import type { Dispatch } from '@reduxjs/toolkit';
import { sessionLogDownloadRequested } from './middleware.ts';

/** Ctrl+Shift+L downloads the session log (debug builds install this). Returns the uninstaller. */
export function installSessionLogHotkey(target: Pick<Window, 'addEventListener' | 'removeEventListener'>, dispatch: Dispatch) {
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.ctrlKey && event.shiftKey && !event.altKey && event.key.toLowerCase() === 'l') {
      event.preventDefault();
      dispatch(sessionLogDownloadRequested());
    }
  };
  target.addEventListener('keydown', onKeyDown);
  return () => target.removeEventListener('keydown', onKeyDown);
}
