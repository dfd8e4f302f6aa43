/// <reference types="vite/client" />

declare const __APP_VERSION__: string;
declare const __APP_ENV__: 'local' | 'debug' | 'test' | 'pre' | 'product';
