import { getContext } from 'typed-redux-saga';

/**
 * The outside world, as sagas see it. Production builds pass the real adapters
 * (src/services); saga tests pass fakes. Sagas never import a service module directly.
 */
export interface SagaServices {
  // Filled in by the session, voice and stats features.
}

export function* services() {
  return (yield* getContext<SagaServices>('services'));
}
