import { combineSlices, configureStore } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { accountSlice } from '../features/account/accountSlice.ts';
import { localeSlice } from '../features/locale/localeSlice.ts';
import { noticesSlice } from '../features/notices/noticesSlice.ts';
import { sessionSlice } from '../features/session/sessionSlice.ts';
import type { SagaServices } from '../sagas/context.ts';
import { rootSaga } from '../sagas/rootSaga.ts';

/** Feature slices are added here; lazily loaded features use rootReducer.inject. */
export const rootReducer = combineSlices(accountSlice, localeSlice, noticesSlice, sessionSlice);

export type RootState = ReturnType<typeof rootReducer>;

export interface MakeStoreOptions {
  preloadedState?: Partial<RootState>;
  /** Services given to sagas through saga context; omit to run without sagas (component tests, replay). */
  services?: SagaServices;
}

export function makeStore({ preloadedState, services }: MakeStoreOptions = {}) {
  const sagaMiddleware = services ? createSagaMiddleware({ context: { services } }) : null;
  const store = configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) => (sagaMiddleware ? getDefault().concat(sagaMiddleware) : getDefault()),
  });
  if (sagaMiddleware) sagaMiddleware.run(rootSaga);
  return store;
}

export type AppStore = ReturnType<typeof makeStore>;
export type AppDispatch = AppStore['dispatch'];
