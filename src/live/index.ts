/**
 * The live chunk: the live screen, chat, voice and stats, with their sagas and services.
 * The first chunk (main.tsx) fetches it while the visitor reads the pre-session screen
 * (sagas/liveLoader.ts); this module is that chunk's entry, nothing imports it statically.
 */
export { LiveView } from './LiveView.tsx';
export { liveSaga } from '../sagas/liveSaga.ts';
export { createLiveServices as createServices } from '../services/liveServices.ts';
