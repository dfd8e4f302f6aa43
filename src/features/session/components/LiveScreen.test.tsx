import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import { remoteMedia } from '../../../services/remoteMedia.ts';
import { eventsPastTheWindow, recordVideoListeners } from '../../../test/mediaListeners.ts';
import { renderWithProviders, validAccount } from '../../../test/render.tsx';
import { langChosen } from '../../locale/localeSlice.ts';
import { endRequested, videoCanPlay, videoPlayBlocked, videoPlaying, sessionSlice, type SessionState } from '../sessionSlice.ts';
import { catalogue } from '../../notices/messages.ts';
import { alertShown, toastShown } from '../../notices/noticesSlice.ts';
import { AlertDialog } from '../../notices/components/AlertDialog.tsx';
import { Toasts } from '../../notices/components/Toasts.tsx';
import { HomeScreen } from './HomeScreen.tsx';
import { LiveView } from '../../../live/LiveView.tsx';
import { LiveScreen } from './LiveScreen.tsx';

function session(overrides: Partial<SessionState>): SessionState {
  return { ...sessionSlice.getInitialState(), status: 'live', roomId: 'room-1', signaling: 'open', media: 'connected', ...overrides };
}

const fakeStream = { id: 'remote' } as unknown as MediaStream;
let play: Mock<(element: HTMLMediaElement) => Promise<void>>;

beforeEach(() => {
  // jsdom has no media playback; each test decides how play() ends.
  play = vi.fn((_element: HTMLMediaElement) => Promise.resolve());
  vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
    return play(this);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  act(() => remoteMedia.set(null));
});

function renderLive(overrides: Partial<SessionState> = {}) {
  return renderWithProviders(<LiveScreen chatLog={<div>log slot</div>} inputBar={<div>input slot</div>} />, {
    preloadedState: { account: validAccount(), session: session(overrides) },
  });
}

function mediaElements() {
  const video = screen.getByLabelText('Avatar video') as HTMLVideoElement;
  const audio = document.querySelector('audio');
  if (!audio) throw new Error('no audio element');
  return { video, audio };
}

describe('LiveScreen', () => {
  it('has the avatar video, a separate audio element, End chat and the slots', () => {
    renderLive();
    const { video, audio } = mediaElements();
    expect(video.tagName).toBe('VIDEO');
    expect(video.muted).toBe(true);
    expect(video).toHaveAttribute('playsinline');
    expect(audio).not.toBe(video);
    expect(screen.getByRole('button', { name: 'End chat' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Language' })).toBeInTheDocument();
    expect(screen.getByText('log slot')).toBeInTheDocument();
    expect(screen.getByText('input slot')).toBeInTheDocument();
  });

  it("the avatar video is named in the visitor's language, follows a change of it, and listens to canplay only (no React media listeners)", async () => {
    const added = recordVideoListeners();
    const { store } = renderWithProviders(<LiveScreen chatLog={null} inputBar={null} />, {
      preloadedState: { account: validAccount(), session: session({}) },
      lang: 'jp',
    });
    const video = screen.getByLabelText('アバター映像', { selector: 'video' });
    expect(video).toHaveClass('avatar-video__el');
    expect(video).toHaveAttribute('disablepictureinpicture');
    // React would attach every media event (timeupdate among them, four times a second in a call).
    expect(added.get(video)).toEqual(['canplay']);
    act(() => {
      store.dispatch(langChosen('kor'));
    });
    expect(await screen.findByLabelText('아바타 영상', { selector: 'video' })).toBe(video);
  });

  it("the avatar's periodic media events stop at the window, before React's root listener; others pass", () => {
    renderLive();
    const { video, audio } = mediaElements();
    expect(eventsPastTheWindow([video, audio], ['timeupdate', 'progress', 'canplay'])).toEqual(['canplay VIDEO', 'canplay AUDIO']);
  });

  it('End chat dispatches endRequested', async () => {
    const user = userEvent.setup();
    const { actionTypes } = renderLive();
    await user.click(screen.getByRole('button', { name: 'End chat' }));
    expect(actionTypes()).toEqual([endRequested.type]);
  });

  it('plays the remote stream on both elements after canplay and reports it', async () => {
    const { actionTypes } = renderLive({ status: 'connecting', phase: 'video' });
    act(() => remoteMedia.set(fakeStream));
    const { video, audio } = mediaElements();
    expect(video.srcObject).toBe(fakeStream);
    expect(audio.srcObject).toBe(fakeStream);
    await act(async () => {
      fireEvent.canPlay(video);
    });
    expect(play.mock.calls.map(([el]) => el)).toEqual([video, audio]);
    expect(actionTypes()).toEqual([videoCanPlay.type, videoPlaying.type]);
  });

  it('reports a refused autoplay, and a tap on the video plays again', async () => {
    const { actionTypes, store } = renderLive();
    act(() => remoteMedia.set(fakeStream));
    play.mockImplementation((el: HTMLMediaElement) =>
      el.tagName === 'AUDIO' ? Promise.reject(new DOMException('no gesture', 'NotAllowedError')) : Promise.resolve(),
    );
    const { video } = mediaElements();
    await act(async () => {
      fireEvent.canPlay(video);
    });
    expect(actionTypes()).toEqual([videoCanPlay.type, videoPlayBlocked.type]);
    expect(store.getState().session.needsTapToPlay).toBe(true);

    play.mockImplementation(() => Promise.resolve());
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Tap to play' }));
    });
    expect(actionTypes().at(-1)).toBe(videoPlaying.type);
    expect(screen.queryByRole('button', { name: 'Tap to play' })).not.toBeInTheDocument();
  });

  it('the tap-to-play alert plays both media elements from inside the tap', async () => {
    const { store, actionTypes } = renderWithProviders(
      <>
        <LiveScreen />
        <AlertDialog />
      </>,
      { preloadedState: { account: validAccount(), session: session({ status: 'connecting', needsTapToPlay: true }) } },
    );
    act(() => remoteMedia.set(fakeStream));
    act(() => {
      store.dispatch(alertShown({ id: catalogue.videoNotStarted.id }, 'tapToPlay'));
    });
    const { video, audio } = mediaElements();
    await act(async () => {
      fireEvent.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Tap to play' }));
    });
    expect(play.mock.calls.map(([el]) => el)).toEqual([video, audio]);
    expect(actionTypes().at(-1)).toBe(videoPlaying.type);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('a manual play that fails for another reason shows the play-failed alert', async () => {
    const { store } = renderLive({ needsTapToPlay: true });
    act(() => remoteMedia.set(fakeStream));
    play.mockImplementation(() => Promise.reject(new DOMException('decode', 'NotSupportedError')));
    await act(async () => {
      fireEvent.click(screen.getByLabelText('Avatar video'));
    });
    expect(store.getState().notices.alert?.message).toEqual({ id: catalogue.playFailed.id });
  });

  it('an avatar voice that cannot play (not the autoplay rule) says "Audio playback error"; the picture plays and the session goes live', async () => {
    const { actionTypes, store } = renderLive({ status: 'connecting', phase: 'video' });
    act(() => remoteMedia.set(fakeStream));
    play.mockImplementation((el: HTMLMediaElement) =>
      el.tagName === 'AUDIO' ? Promise.reject(new DOMException('no decoder', 'NotSupportedError')) : Promise.resolve(),
    );
    await act(async () => {
      fireEvent.canPlay(mediaElements().video);
    });
    expect(actionTypes()).toEqual([videoCanPlay.type, videoPlaying.type, toastShown.type]);
    expect(store.getState().session.status).toBe('live');
    expect(store.getState().notices.toasts.map((t) => t.message)).toEqual([{ id: catalogue.audioPlaybackError.id }]);
    expect(store.getState().notices.alert).toBeNull();
  });

  it('a picture that cannot play keeps "Playback failed" and never says the audio failed', async () => {
    const { store } = renderLive({ needsTapToPlay: true });
    act(() => remoteMedia.set(fakeStream));
    play.mockImplementation((el: HTMLMediaElement) =>
      el.tagName === 'VIDEO' ? Promise.reject(new DOMException('decode', 'NotSupportedError')) : Promise.resolve(),
    );
    await act(async () => {
      fireEvent.click(screen.getByLabelText('Avatar video'));
    });
    expect(store.getState().notices.alert?.message).toEqual({ id: catalogue.playFailed.id });
    expect(store.getState().notices.toasts).toEqual([]);
  });

  it.each([
    ['zh', '音频播放出错'],
    ['en', 'Audio playback error'],
  ] as const)('the audio playback error toast reads in %s', async (lang, text) => {
    renderWithProviders(
      <>
        <LiveScreen />
        <Toasts />
      </>,
      { preloadedState: { account: validAccount(), session: session({}) }, lang },
    );
    act(() => remoteMedia.set(fakeStream));
    play.mockImplementation((el: HTMLMediaElement) =>
      el.tagName === 'AUDIO' ? Promise.reject(new DOMException('no decoder', 'NotSupportedError')) : Promise.resolve(),
    );
    await act(async () => {
      fireEvent.canPlay(document.querySelector('video')!);
    });
    expect(screen.getByRole('status')).toHaveTextContent(text);
  });

  it('while connecting it is mounted under the pre-session screen and hidden from assistive technology', () => {
    renderWithProviders(<HomeScreen live={LiveView} />, {
      preloadedState: { account: validAccount(), session: session({ status: 'connecting', phase: 'stream' }) },
    });
    expect(screen.getByLabelText('Avatar video', { selector: 'video' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'End chat' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('is not mounted in the Start chat tap: only once the room is started and its stream awaited', () => {
    renderWithProviders(<HomeScreen live={LiveView} />, {
      preloadedState: { account: validAccount(), session: session({ status: 'connecting', phase: 'route' }) },
    });
    expect(screen.queryByLabelText('Avatar video')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });

  it('is not mounted at all before a start', () => {
    renderWithProviders(<HomeScreen live={LiveView} />, { preloadedState: { account: validAccount(), session: session({ status: 'idle' }) } });
    expect(screen.queryByLabelText('Avatar video')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start chat' })).toBeInTheDocument();
  });
});
