import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Lang } from './langs.ts';

export { INTL_LOCALE, isLang, LANGS, LANGUAGES, type Lang } from './langs.ts';

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
