import { useEffect, useState, type ReactNode } from 'react';
import { IntlProvider } from 'react-intl';
import { Provider } from 'react-redux';
import { INTL_LOCALE, selectLang, type Lang } from '../features/locale/localeSlice.ts';
import { useAppSelector } from './hooks.ts';
import { loadMessages, reportIntlError, type Messages } from './i18n.ts';
import type { AppStore } from './store.ts';

export interface LoadedLocale {
  lang: Lang;
  messages: Messages;
}

/**
 * Follows the store's language: loads its messages and only then switches, so
 * the previous language stays on screen meanwhile (never a flash of ids or of
 * another language). Nothing renders until the first locale has arrived.
 */
function I18nProvider({ initial, children }: { initial?: LoadedLocale; children: ReactNode }) {
  const lang = useAppSelector(selectLang);
  const [loaded, setLoaded] = useState<LoadedLocale | null>(initial ?? null);

  useEffect(() => {
    let current = true;
    loadMessages(lang).then(
      (messages) => {
        if (current) setLoaded((prev) => (prev?.lang === lang && prev.messages === messages ? prev : { lang, messages }));
      },
      () => {
        // Already logged. With nothing on screen yet, show the English defaults rather than a blank page.
        if (current) setLoaded((prev) => prev ?? { lang, messages: {} });
      },
    );
    return () => {
      current = false;
    };
  }, [lang]);

  useEffect(() => {
    if (loaded) document.documentElement.lang = INTL_LOCALE[loaded.lang];
  }, [loaded]);

  if (!loaded) return null;
  return (
    <IntlProvider locale={INTL_LOCALE[loaded.lang]} defaultLocale="en" messages={loaded.messages} onError={reportIntlError}>
      {children}
    </IntlProvider>
  );
}

/** Redux and react-intl, for the app and for component tests alike. */
export function Providers({ store, initialLocale, children }: { store: AppStore; initialLocale?: LoadedLocale; children: ReactNode }) {
  return (
    <Provider store={store}>
      <I18nProvider initial={initialLocale}>{children}</I18nProvider>
    </Provider>
  );
}
