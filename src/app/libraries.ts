/**
 * The libraries of the first chunk (React, Redux, redux-saga, react-intl), built as one
 * chunk (`libs`, vite.config.ts) and imported by src/early.ts before the app's own
 * modules: their evaluation is a task of its own, not one long task with the app's. The
 * re-exports make the bundler evaluate each package here; nothing imports them from here.
 */
export { createRoot } from 'react-dom/client';
export { Provider } from 'react-redux';
export { IntlProvider } from 'react-intl';
export { configureStore } from '@reduxjs/toolkit';
export { default as createSagaMiddleware } from 'redux-saga';
