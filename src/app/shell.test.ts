import { afterEach, describe, expect, it } from 'vitest';
import { LANGS } from '../features/locale/langs.ts';
import { dismissShell, fillShell, SHELL_LOAD_FAILED, showShellLoadFailure } from './shell.ts';

const SHELL = '<div id="shell"><div class="shell__photo"></div><p class="shell__title"></p></div>';
afterEach(() => {
  document.body.innerHTML = '';
});

describe('the static shell', () => {
  it('shows the account photo and title once known, and goes away when dismissed', () => {
    document.body.innerHTML = SHELL;
    fillShell({ photoUrl: 'https://example.com/p.jpg', title: 'Ava' });
    expect(document.querySelector<HTMLImageElement>('.shell__photo img')?.src).toBe('https://example.com/p.jpg');
    expect(document.querySelector('.shell__title')?.textContent).toBe('Ava');
    dismissShell();
    expect(document.getElementById('shell')).toBeNull();
    // Filling a dismissed shell (a late answer) does nothing.
    expect(() => fillShell({ photoUrl: 'https://example.com/p.jpg', title: 'Ava' })).not.toThrow();
  });

  it('says the page could not be loaded, in the visitor\'s language, with a link that reloads it', () => {
    document.body.innerHTML = '<div id="shell" aria-hidden="true"><div class="shell__footer"><div class="shell__action"><svg></svg></div></div></div>';
    showShellLoadFailure('cht');
    const link = document.querySelector<HTMLAnchorElement>('#shell a.shell__action');
    expect(link?.textContent).toBe(SHELL_LOAD_FAILED.cht);
    expect(link?.getAttribute('role')).toBe('alert');
    expect(link?.href).toBe(document.location.href);
    // Heard and tappable now: the shell is no longer hidden from assistive technology.
    expect(document.getElementById('shell')?.hasAttribute('aria-hidden')).toBe(false);
    expect(link?.style.pointerEvents).toBe('auto');
  });

  it('has the failure in every language', () => {
    expect(Object.keys(SHELL_LOAD_FAILED)).toEqual([...LANGS]);
    for (const text of Object.values(SHELL_LOAD_FAILED)) expect(text.length).toBeGreaterThan(5);
  });
});
