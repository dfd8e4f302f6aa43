import { combineSlices, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { accountSlice } from '../features/account/accountSlice.ts';
import { chatSlice } from '../features/chat/chatSlice.ts';
import { inputSlice } from '../features/input/inputSlice.ts';
import { localeSlice } from '../features/locale/localeSlice.ts';
import { noticesSlice } from '../features/notices/noticesSlice.ts';
import { createSessionLogMiddleware } from '../features/sessionLog/middleware.ts';
import type { SessionRecorder } from '../features/sessionLog/recorder.ts';
import { sessionSlice } from '../features/session/sessionSlice.ts';
import { statsSlice } from '../features/stats/statsSlice.ts';
import { voiceSlice } from '../features/voice/voiceSlice.ts';
import type { CoreServices } from '../sagas/context.ts';
import type { LiveLoader } from '../sagas/liveLoader.ts';
import { rootSaga } from '../sagas/rootSaga.ts';

/** Feature slices are added here; lazily loaded features use rootReducer.inject. */
export const rootReducer = combineSlices(
  accountSlice,
  localeSlice,
  noticesSlice,
  sessionSlice,
  chatSlice,
  inputSlice,
  statsSlice,
  voiceSlice,
);

export type RootState = ReturnType<typeof rootReducer>;

export interface MakeStoreOptions {
  preloadedState?: Partial<RootState>;
  /**
   * The sagas' services (saga context) and the loader of the live chunk, whose sagas and
   * services join once it is here (sagas/liveLoader.ts); omit to run without sagas
   * (component tests, replay).
   */
  sagas?: { services: CoreServices; loadLive: LiveLoader };
  /** Records every action for the session log; it runs before the sagas so it sees actions in reducer order. */
  sessionLog?: SessionRecorder;
}

export function makeStore({ preloadedState, sagas, sessionLog }: MakeStoreOptions = {}) {
  const sagaMiddleware = sagas ? createSagaMiddleware({ context: { services: sagas.services } }) : null;
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) =>
      getDefault()
        .prepend(sessionLog ? [createSessionLogMiddleware(sessionLog)] : [])
        .concat(sagaMiddleware ? [sagaMiddleware] : []),
  });
  if (sagaMiddleware && sagas) sagaMiddleware.run(rootSaga, sagas.loadLive);
  return store;
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
