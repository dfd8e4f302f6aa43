/**
 * docs/requirements.md R17 (live state: "a background image or video") and R34 (user info
 * Background: an image or video URL). The account's background is drawn behind the avatar:
 * in the live screen it comes before the avatar video in the same stacking context, so it
 * is painted under it (tests/e2e/special-account.spec.ts checks the painted order in a
 * browser), and it is decoration, hidden from assistive technology.
 */
import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AccountInfo } from '../../account/accountSlice.ts';
import { eventsPastTheWindow, recordVideoListeners } from '../../../test/mediaListeners.ts';
import { demoAccountInfo, renderWithProviders, validAccount } from '../../../test/render.tsx';
import { sessionSlice } from '../sessionSlice.ts';
import { LiveScreen } from './LiveScreen.tsx';

function renderLive(background: AccountInfo['background'], userId = 'demo') {
  return renderWithProviders(<LiveScreen />, {
    preloadedState: {
      account: validAccount({ userId, info: { ...demoAccountInfo, background } }),
      session: { ...sessionSlice.getInitialState(), status: 'live', roomId: 'room-1', signaling: 'open', media: 'connected' },
    },
  });
}

/** The background layer and the avatar layer of the live screen, checked to be siblings with the background first. */
function layers(container: HTMLElement) {
  const live = container.querySelector('.live');
  const background = container.querySelector('.stage-bg');
  const avatar = screen.getByLabelText('Avatar video').closest('.avatar-video');
  if (!live || !background || !avatar) throw new Error('the live screen has no background or avatar layer');
  expect(background.parentElement).toBe(live);
  expect(avatar.parentElement).toBe(live);
  expect(background.compareDocumentPosition(avatar) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  expect(background).toHaveAttribute('aria-hidden', 'true');
  return { background, avatar };
}

describe('the background behind the avatar', () => {
  it('an image URL is an image behind the avatar video', () => {
    const { container } = renderLive({ kind: 'image', url: 'http://127.0.0.1/assets/bg.jpg' });
    const { background, avatar } = layers(container);
    const img = background.querySelector('img');
    expect(img).toHaveAttribute('src', 'http://127.0.0.1/assets/bg.jpg');
    expect(img).toHaveAttribute('alt', '');
    expect(background.querySelector('video')).toBeNull();
    expect(avatar.contains(img)).toBe(false);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a .webm video URL (the gov account) is a muted, looping, inline video behind the avatar video', () => {
    const listened = recordVideoListeners();
    const url = 'http://127.0.0.1/assets-standin/backgrounds/showroom-loop.webm';
    const { container } = renderLive({ kind: 'video', url }, 'gov');
    const { background } = layers(container);
    const video = background.querySelector('video');
    expect(video).not.toBeNull();
    // Nothing listens to its media events: React would attach every one (timeupdate four times a
    // second), and its periodic ones stop at the window, before React's root listener.
    expect(listened.get(video!)).toBeUndefined();
    expect(eventsPastTheWindow([video!], ['timeupdate', 'progress', 'playing'])).toEqual(['playing VIDEO']);
    expect(video).toHaveAttribute('src', url);
    expect(video?.muted).toBe(true);
    expect(video?.loop).toBe(true);
    expect(video?.autoplay).toBe(true);
    expect(video).toHaveAttribute('playsinline');
    expect(background.querySelector('img')).toBeNull();
    // It is not the avatar: the one video named "Avatar video" is another element.
    expect(screen.getByLabelText('Avatar video')).not.toBe(video);
  });

  it('without one, a plain backdrop', () => {
    const { container } = renderLive(null);
    const { background } = layers(container);
    expect(background).toHaveClass('stage-bg--plain');
    expect(background.querySelector('img, video')).toBeNull();
  });
});
