import { buffers, eventChannel, type EventChannel } from 'redux-saga';
import type { PlatformService } from '../../services/platform.ts';

export interface VisibilityEvent {
  hidden: boolean;
}

/** Page visibility changes. Only the latest state matters, so a sliding buffer of one. */
export function visibilityChannel(platform: PlatformService): EventChannel<VisibilityEvent> {
  return eventChannel<VisibilityEvent>(
    (emit) => platform.onVisibilityChange((hidden) => emit({ hidden })),
    buffers.sliding(1),
  );
}
