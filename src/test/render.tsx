import type { UnknownAction } from '@reduxjs/toolkit';
import { render, type RenderOptions } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import type { AccountInfo, AccountState } from '../features/account/accountSlice.ts';
import { byLang, type Lang } from '../features/locale/langs.ts';
import type { Messages } from '../app/i18n.ts';
import { Providers } from '../app/providers.tsx';
import { makeStore, type AppStore, type RootState } from '../app/store.ts';

// Tests get every locale synchronously, so the first render is already in the asked language.
const files = import.meta.glob<Messages>('../../lang/*.json', { import: 'default', eager: true });
const MESSAGES = byLang((language) => files[`../../lang/${language.code}.json`] ?? {});

export interface ProvidersOptions extends Omit<RenderOptions, 'wrapper'> {
  preloadedState?: Partial<RootState>;
  /** The language to render in (also written to the locale slice); default en. */
  lang?: Lang;
}

/**
 * The Vite Redux template's renderWithProviders: a real store (no sagas), the
 * app's providers, and a record of every dispatched action for assertions.
 */
export function renderWithProviders(ui: ReactElement, { preloadedState = {}, lang = 'en', ...options }: ProvidersOptions = {}) {
  const store: AppStore = makeStore({
    preloadedState: { ...preloadedState, locale: { pickerOpen: false, ...preloadedState.locale, lang } },
  });
  const dispatched: UnknownAction[] = [];
  const dispatch = store.dispatch;
  store.dispatch = ((action: UnknownAction) => {
    dispatched.push(action);
    return dispatch(action);
  }) as AppStore['dispatch'];

  function Wrapper({ children }: { children: ReactNode }) {
    return (
      <Providers store={store} initialLocale={{ lang, messages: MESSAGES[lang] }}>
        {children}
      </Providers>
    );
  }
  const result = render(ui, { wrapper: Wrapper, ...options });
  /** Types of the actions dispatched so far, in order. */
  const actionTypes = () => dispatched.map((a) => a.type);
  return { store, dispatched, actionTypes, ...result };
}

export const demoAccountInfo: AccountInfo = {
  photoUrl: 'http://127.0.0.1/assets/demo.png',
  title: 'Harbour Store Assistant',
  label: 'Retail',
  background: { kind: 'image', url: 'http://127.0.0.1/assets/bg.jpg' },
  asr: { appKey: 'key', region: 'local' },
};

/** The account slice of a loaded, valid account. */
export function validAccount(overrides: Partial<AccountState> = {}): AccountState {
  return { status: 'valid', userId: 'demo', deviceId: 'H5abc', info: demoAccountInfo, ...overrides };
}
