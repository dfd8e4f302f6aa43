import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

export const LANGS = ['zh', 'cht', 'en', 'jp', 'kor'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(value: unknown): value is Lang {
  return typeof value === 'string' && (LANGS as readonly string[]).includes(value);
}

/** BCP 47 tags for Intl/react-intl; recognition locales are the voice feature's own table. */
export const INTL_LOCALE: Record<Lang, string> = { zh: 'zh-CN', cht: 'zh-TW', en: 'en', jp: 'ja', kor: 'ko' };

export interface LocaleState {
  lang: Lang;
  pickerOpen: boolean;
}

const initialState: LocaleState = { lang: 'zh', pickerOpen: false };

export const localeSlice = createSlice({
  name: 'locale',
  initialState,
  reducers: {
    langInitialized(state, action: PayloadAction<Lang>) {
      state.lang = action.payload;
    },
    langPickerOpened(state) {
      state.pickerOpen = true;
    },
    langPickerClosed(state) {
      state.pickerOpen = false;
    },
    langChosen(state, action: PayloadAction<Lang>) {
      state.lang = action.payload;
      state.pickerOpen = false;
    },
  },
  selectors: {
    selectLang: (state) => state.lang,
    selectLangPickerOpen: (state) => state.pickerOpen,
  },
});

export const { langInitialized, langPickerOpened, langPickerClosed, langChosen } = localeSlice.actions;
export const { selectLang, selectLangPickerOpen } = localeSlice.selectors;
