/// <reference types="vite/client" />

declare const __APP_VERSION__: string;
declare const __APP_ENV__: 'local' | 'debug' | 'test' | 'pre' | 'product';

/** scripts/sileroModel.ts: the URL of the Silero VAD model, emitted with the build. */
declare module 'virtual:silero-vad-model' {
  const url: string;
  export default url;
}
