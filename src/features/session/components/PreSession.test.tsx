import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import cht from '../../../../lang/cht.json';
import en from '../../../../lang/en.json';
import jp from '../../../../lang/jp.json';
import kor from '../../../../lang/kor.json';
import zh from '../../../../lang/zh.json';
import { avatarAudioElement } from '../../../services/avatarAudio.ts';
import { renderWithProviders, validAccount } from '../../../test/render.tsx';
import { cancelRequested, startRequested, sessionSlice, type SessionState } from '../sessionSlice.ts';
import { PreSession } from './PreSession.tsx';

function session(overrides: Partial<SessionState>): SessionState {
  return { ...sessionSlice.getInitialState(), ...overrides };
}

describe('PreSession', () => {
  it('shows the photo, title, label and Start chat when idle', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() } });
    expect(screen.getByRole('heading', { name: 'Harbour Store Assistant' })).toBeInTheDocument();
    expect(screen.getByText('Retail')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Photo of the assistant' })).toHaveAttribute('src', 'http://127.0.0.1/assets/demo.png');
    expect(screen.getByText(/chat with it/i)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start chat' })).toBeEnabled();
    expect(screen.queryByText(/Connecting/)).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
  });

  it('Start chat dispatches startRequested, then becomes Cancel with a Connecting hint', async () => {
    const user = userEvent.setup();
    const { actionTypes } = renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() } });
    await user.click(screen.getByRole('button', { name: 'Start chat' }));
    expect(actionTypes()).toEqual([startRequested.type]);
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Start chat' })).not.toBeInTheDocument();
    expect(screen.getByText(/Connecting/)).toBeInTheDocument();
  });

  it('plays the avatar audio element inside the Start chat tap, so iOS lets its voice play when it arrives', async () => {
    const user = userEvent.setup();
    const played: HTMLMediaElement[] = [];
    const play = vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
      played.push(this);
      return Promise.resolve();
    });
    try {
      renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() } });
      await user.click(screen.getByRole('button', { name: 'Start chat' }));
      expect(played).toEqual([avatarAudioElement()]);
    } finally {
      play.mockRestore();
    }
  });

  it('Cancel while connecting dispatches cancelRequested and shows the connect phase', async () => {
    const user = userEvent.setup();
    const { actionTypes } = renderWithProviders(<PreSession />, {
      preloadedState: { account: validAccount(), session: session({ status: 'connecting', phase: 'media' }) },
    });
    expect(screen.getByText('Linking')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(actionTypes()).toEqual([cancelRequested.type]);
  });

  it('while connecting, "digital people are on their way" shows beside the Connecting text; not when idle', () => {
    const { unmount } = renderWithProviders(<PreSession />, {
      preloadedState: { account: validAccount(), session: session({ status: 'connecting', phase: 'route' }) },
    });
    expect(screen.getByText(/Connecting/)).toBeInTheDocument();
    expect(screen.getByText('Digital people are on their way')).toBeInTheDocument();
    unmount();
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() } });
    expect(screen.queryByText('Digital people are on their way')).not.toBeInTheDocument();
  });

  it.each([
    ['zh', zh],
    ['cht', cht],
    ['en', en],
    ['jp', jp],
    ['kor', kor],
  ] as const)('the on-their-way text while connecting in %s', (lang, messages) => {
    renderWithProviders(<PreSession />, {
      preloadedState: { account: validAccount(), session: session({ status: 'connecting', phase: null }) },
      lang,
    });
    expect(screen.getByText(messages['error.onTheirWay'])).toBeInTheDocument();
    expect(screen.getByText(messages['session.connecting'])).toBeInTheDocument();
  });

  it('a double tap on Start chat asks to start again (please wait) instead of cancelling', async () => {
    const user = userEvent.setup();
    const { actionTypes } = renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() } });
    await user.dblClick(screen.getByRole('button', { name: 'Start chat' }));
    expect(actionTypes()).toEqual([startRequested.type, startRequested.type]);
  });

  it('falls back to a drawn placeholder and the default title without photo or title', () => {
    renderWithProviders(<PreSession />, {
      preloadedState: {
        account: validAccount({ info: { photoUrl: null, title: null, label: null, background: null, asr: null } }),
      },
    });
    expect(screen.getByRole('heading', { name: 'Your shopping assistant' })).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Photo of the assistant' }).tagName.toLowerCase()).toBe('svg');
  });

  it('has no special-account notes for an ordinary account', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() } });
    expect(screen.queryByText(/public government information/)).not.toBeInTheDocument();
    expect(screen.queryByText('Digital host')).not.toBeInTheDocument();
  });

  it('speaks the visitor language: zh', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount() }, lang: 'zh' });
    expect(screen.getByRole('button', { name: '开始对话' })).toBeInTheDocument();
  });

  it('keeps Start chat disabled while a session is ending', () => {
    renderWithProviders(<PreSession />, { preloadedState: { account: validAccount(), session: session({ status: 'ending' }) } });
    expect(screen.getByRole('button', { name: 'Start chat' })).toBeDisabled();
  });
});
