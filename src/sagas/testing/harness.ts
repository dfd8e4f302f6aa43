/**
 * A real store (the app's root reducer and root saga) with fake services and a
 * log of every dispatched action. It mirrors makeStore; the only addition is
 * the recording middleware, so tests can assert actions no reducer keeps.
 */
import { configureStore, type Middleware, type UnknownAction } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { vi } from 'vitest';
import { rootReducer } from '../../app/store.ts';
import type { LiveLoader } from '../liveLoader.ts';
import { liveSaga } from '../liveSaga.ts';
import { rootSaga } from '../rootSaga.ts';
import { createFakes, type FakeOptions, type Fakes } from './fakes.ts';

/**
 * `arrange` runs before the root saga starts, for fakes the boot saga uses at once.
 * The live chunk is "loaded" synchronously, the live sagas sharing the fakes already in
 * the context: liveLoader.test.ts drives a slow or failing load.
 */
export function setupSagas(options: FakeOptions & { loadLive?: LiveLoader } = {}, arrange?: (fakes: Fakes) => void) {
  const fakes = createFakes(options);
  arrange?.(fakes);
  const actions: UnknownAction[] = [];
  const recorder: Middleware = () => (next) => (action) => {
    actions.push(action as UnknownAction);
    return next(action);
  };
  const sagaMiddleware = createSagaMiddleware({ context: { services: fakes.services } });
  const store = configureStore({
    reducer: rootReducer,
    middleware: (getDefault) => getDefault().concat(recorder, sagaMiddleware),
  });
  const task = sagaMiddleware.run(rootSaga, options.loadLive ?? (() => ({ liveSaga })));
  return {
    ...fakes,
    store,
    actions,
    task,
    dispatch: store.dispatch,
    state: () => store.getState(),
    session: () => store.getState().session,
    types: () => actions.map((a) => a.type),
    ofType: (type: string) => actions.filter((a) => a.type === type),
    /** Lets pending promises and zero-delay timers run. */
    async flush() {
      for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(0);
    },
    async advance(ms: number) {
      await vi.advanceTimersByTimeAsync(ms);
      for (let i = 0; i < 5; i += 1) await vi.advanceTimersByTimeAsync(0);
    },
  };
}

export type Harness = ReturnType<typeof setupSagas>;
