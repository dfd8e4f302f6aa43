import { afterEach, describe, expect, it } from 'vitest';
import { dismissShell, fillShell } from './shell.ts';

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
});
