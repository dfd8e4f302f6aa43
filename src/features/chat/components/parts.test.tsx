import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import { sendRequested } from '../../signaling/signalingActions.ts';
import { suggestionTapped, videoStarted, videoStopped } from '../chatSlice.ts';
import { videoKey } from '../model.ts';
import { Gallery } from './Gallery.tsx';
import { InlineVideo } from './InlineVideo.tsx';
import { RelatedQuestions } from './RelatedQuestions.tsx';
import { WEB_PAGE_SANDBOX, WebPageCard } from './WebPageCard.tsx';

afterEach(() => {
  vi.restoreAllMocks();
});

const images = [1, 2, 3].map((n) => ({ url: `http://127.0.0.1/img/${n}.png`, index: n }));

describe('Gallery', () => {
  it('shows every image with its index and drops anything that is not http(s)', () => {
    renderWithProviders(<Gallery images={[...images, { url: 'javascript:alert(1)', index: 4 }]} />);
    const tiles = screen.getAllByRole('button', { name: /^Image \d of 3$/ });
    expect(tiles).toHaveLength(3);
    expect(tiles.map((t) => t.textContent)).toEqual(['1', '2', '3']);
    expect(tiles.map((t) => t.querySelector('img')?.getAttribute('src'))).toEqual(images.map((i) => i.url));
  });

  it('shows nine tiles at most, the last saying how many more; the viewer has them all', async () => {
    const user = userEvent.setup();
    const many = Array.from({ length: 14 }, (_, i) => ({ url: `http://127.0.0.1/img/${i + 1}.png`, index: i + 1 }));
    renderWithProviders(<Gallery images={many} />);
    const tiles = screen.getAllByRole('button', { name: /^Image \d+ of 14$/ });
    expect(tiles).toHaveLength(9);
    expect(tiles[8]!.querySelector('.gallery__more')).toHaveTextContent('5');
    await user.click(tiles[8]!);
    await user.click(screen.getByRole('button', { name: 'Next image' }));
    expect(screen.getByRole('dialog', { name: 'Image 10 of 14' })).toBeInTheDocument();
  });

  it('opens an image full screen; arrows, swipes and Escape move and close', async () => {
    const user = userEvent.setup();
    renderWithProviders(<Gallery images={images} />);
    await user.click(screen.getByRole('button', { name: 'Image 2 of 3' }));
    const viewer = screen.getByRole('dialog', { name: 'Image 2 of 3' });
    expect(viewer.querySelector('img')).toHaveAttribute('src', images[1]!.url);

    await user.click(within(viewer).getByRole('button', { name: 'Next image' }));
    expect(screen.getByRole('dialog', { name: 'Image 3 of 3' })).toBeInTheDocument();

    // swipe right: back one
    const stage = viewer.querySelector('.viewer__stage')!;
    fireEvent.pointerDown(stage, { pointerId: 1, button: 0, clientX: 100, clientY: 300 });
    fireEvent.pointerMove(stage, { pointerId: 1, clientX: 220, clientY: 305 });
    fireEvent.pointerUp(stage, { pointerId: 1, clientX: 220, clientY: 305 });
    expect(screen.getByRole('dialog', { name: 'Image 2 of 3' })).toBeInTheDocument();

    await user.keyboard('{ArrowLeft}');
    expect(screen.getByRole('dialog', { name: 'Image 1 of 3' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous image' })).toBeDisabled();

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('closes on a swipe down or the Close button', async () => {
    const user = userEvent.setup();
    renderWithProviders(<Gallery images={images} />);
    await user.click(screen.getByRole('button', { name: 'Image 1 of 3' }));
    const stage = screen.getByRole('dialog').querySelector('.viewer__stage')!;
    fireEvent.pointerDown(stage, { pointerId: 1, button: 0, clientX: 100, clientY: 100 });
    fireEvent.pointerMove(stage, { pointerId: 1, clientX: 105, clientY: 260 });
    fireEvent.pointerUp(stage, { pointerId: 1, clientX: 105, clientY: 260 });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Image 1 of 3' }));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('InlineVideo', () => {
  /** jsdom's media elements never play: `paused` is driven by the test. */
  function playable(video: HTMLVideoElement) {
    let paused = true;
    Object.defineProperty(video, 'paused', { configurable: true, get: () => paused });
    const pause = vi.fn(() => {
      paused = true;
      fireEvent.pause(video);
    });
    video.pause = pause;
    return {
      pause,
      play() {
        paused = false;
        fireEvent.play(video);
      },
    };
  }

  it('plays inline, announces its start and end once, and pauses when another video starts or on a break', () => {
    const { store, dispatched } = renderWithProviders(
      <>
        <InlineVideo messageKey="ai:r1" msgId="r1" partIndex={1} url="http://127.0.0.1/a.webm" />
        <InlineVideo messageKey="ai:r2" msgId="r2" partIndex={0} url="http://127.0.0.1/b.webm" />
      </>,
    );
    // Until tapped, a video is a play button: no media element, nothing fetched.
    expect(document.querySelector('video')).toBeNull();
    const start = vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(() => Promise.resolve());
    for (const button of screen.getAllByRole('button', { name: 'Play video' })) fireEvent.click(button);
    const [a, b] = screen.getAllByLabelText('Video') as HTMLVideoElement[];
    // The tap made the player and started it.
    expect(start).toHaveBeenCalledTimes(2);
    start.mockRestore();
    expect(screen.queryByRole('button', { name: 'Play video' })).toBeNull();
    expect(a).toHaveAttribute('playsinline');
    expect(a).toHaveAttribute('controls');
    const va = playable(a!);
    const vb = playable(b!);

    act(() => va.play());
    expect(dispatched).toEqual([videoStarted({ video: videoKey('ai:r1', 1), msgId: 'r1' })]);

    act(() => vb.play());
    expect(va.pause).toHaveBeenCalledTimes(1);
    expect(vb.pause).not.toHaveBeenCalled();
    expect(dispatched.slice(1)).toEqual([
      videoStarted({ video: videoKey('ai:r2', 0), msgId: 'r2' }),
      videoStopped({ video: videoKey('ai:r1', 1), msgId: 'r1' }),
    ]);

    act(() => {
      store.dispatch(sendRequested({ type: 'break' }));
    });
    expect(vb.pause).toHaveBeenCalledTimes(1);
    // the end fires pause then ended: one report
    fireEvent.ended(b!);
    expect(dispatched.filter((x) => videoStopped.match(x))).toHaveLength(2);
  });

  it('renders nothing for a URL that is not http(s)', () => {
    const { container } = renderWithProviders(<InlineVideo messageKey="ai:r1" msgId="r1" partIndex={0} url="javascript:alert(1)" />);
    expect(container.querySelector('video')).toBeNull();
    expect(container.querySelector('button')).toBeNull();
  });
});

describe('WebPageCard', () => {
  it('opens the page in a sandboxed sheet with a link out, and closes', async () => {
    const user = userEvent.setup();
    renderWithProviders(<WebPageCard url="https://shop.example.com/promo.html" />);
    await user.click(screen.getByRole('button', { name: /Open web page/ }));
    const sheet = screen.getByRole('dialog', { name: 'shop.example.com' });
    const frame = sheet.querySelector('iframe')!;
    expect(frame).toHaveAttribute('src', 'https://shop.example.com/promo.html');
    expect(frame.getAttribute('sandbox')).toBe(WEB_PAGE_SANDBOX);
    expect(WEB_PAGE_SANDBOX.split(' ').sort()).toEqual(['allow-forms', 'allow-popups', 'allow-scripts']);
    expect(frame).toHaveAttribute('referrerpolicy', 'no-referrer');
    const out = within(sheet).getByRole('link', { name: 'Open in browser' });
    expect(out).toHaveAttribute('href', 'https://shop.example.com/promo.html');
    expect(out).toHaveAttribute('target', '_blank');
    expect(out.getAttribute('rel')).toContain('noopener');
    await user.click(within(sheet).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it.each(['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>'])('renders nothing for %s', (url) => {
    const { container } = renderWithProviders(<WebPageCard url={url} />);
    expect(container).toBeEmptyDOMElement();
  });
});

describe('RelatedQuestions', () => {
  it('shows each suggestion as a button that sends it', async () => {
    const user = userEvent.setup();
    const { dispatched } = renderWithProviders(<RelatedQuestions questions={['what are your opening hours', '<b>bold?</b>']} />);
    const group = screen.getByRole('group', { name: 'You may also ask' });
    expect(within(group).getAllByRole('button').map((b) => b.textContent)).toEqual(['what are your opening hours', '<b>bold?</b>']);
    await user.click(screen.getByRole('button', { name: 'what are your opening hours' }));
    expect(dispatched).toEqual([suggestionTapped('what are your opening hours')]);
  });
});
