import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../../../app/App.tsx';
import { LiveView } from '../../../live/LiveView.tsx';
import { renderWithProviders, validAccount } from '../../../test/render.tsx';
import { langChosen, LANGUAGES } from '../localeSlice.ts';

function renderApp() {
  return renderWithProviders(<App live={LiveView} />, { preloadedState: { account: validAccount() } });
}

describe('Language picker', () => {
  it('the Language button opens a dialog named Language with one radio per language, the current one checked', async () => {
    const user = userEvent.setup();
    renderApp();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Language' }));
    const dialog = screen.getByRole('dialog', { name: 'Language' });
    const radios = within(dialog).getAllByRole('radio');
    // One radio per language of the list, in its order, named in its own script (the five names are pinned by scripts/languages.test.ts).
    expect(radios.map((r) => r.getAttribute('value'))).toEqual(LANGUAGES.map((language) => language.code));
    expect(radios.map((r) => r.closest('label')?.textContent)).toEqual(LANGUAGES.map((language) => language.name));
    for (const { name } of LANGUAGES) expect(within(dialog).getByRole('radio', { name })).toBeInTheDocument();
    expect(within(dialog).getByRole('radio', { name: 'English' })).toBeChecked();
    expect(within(dialog).getByRole('radio', { name: 'English' })).toHaveFocus();
    expect(within(dialog).getByRole('button', { name: 'OK' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('OK dispatches langChosen and the texts change to the chosen language', async () => {
    const user = userEvent.setup();
    const { store, dispatched } = renderApp();
    await user.click(screen.getByRole('button', { name: 'Language' }));
    await user.click(screen.getByRole('radio', { name: '简体中文' }));
    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(dispatched.at(-1)).toEqual(langChosen('zh'));
    expect(store.getState().locale).toEqual({ lang: 'zh', pickerOpen: false });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(await screen.findByRole('button', { name: '开始对话' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '语言' })).toBeInTheDocument();
    expect(document.documentElement.lang).toBe('zh-CN');
  });

  it('Cancel closes the dialog without changing the language', async () => {
    const user = userEvent.setup();
    const { store, actionTypes } = renderApp();
    await user.click(screen.getByRole('button', { name: 'Language' }));
    await user.click(screen.getByRole('radio', { name: '日本語' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(store.getState().locale.lang).toBe('en');
    expect(actionTypes()).not.toContain(langChosen.type);
    expect(screen.getByRole('button', { name: 'Start chat' })).toBeInTheDocument();
    // A new opening starts again from the current language.
    await user.click(screen.getByRole('button', { name: 'Language' }));
    expect(screen.getByRole('radio', { name: 'English' })).toBeChecked();
  });
});
