import { afterEach, describe, expect, it } from 'vitest';
import { keepPeriodicEventsFromReact, mutedInlineVideo } from './mutedVideo.ts';

afterEach(() => {
  document.body.replaceChildren();
});

describe('media elements React neither renders nor hears', () => {
  it('a muted, inline video with the class asked for', () => {
    const video = mutedInlineVideo('stage-bg__media');
    expect(video.className).toBe('stage-bg__media');
    expect(video.muted).toBe(true);
    expect(video.defaultMuted).toBe(true);
    expect(video).toHaveAttribute('playsinline');
    expect(video).toHaveAttribute('webkit-playsinline', 'true');
    expect(video).toHaveAttribute('x5-playsinline', 'true');
  });

  it('stops the chosen elements\' timeupdate and progress at the window, lets everything else through, and lets go', () => {
    const root = document.createElement('div');
    const kept = mutedInlineVideo('kept');
    const other = mutedInlineVideo('other');
    root.append(kept, other);
    document.body.append(root);
    const seen: string[] = [];
    for (const type of ['timeupdate', 'progress', 'playing']) root.addEventListener(type, (e) => seen.push(`${e.type} ${(e.target as Element).className}`), true);
    const fire = () => {
      for (const element of [kept, other]) for (const type of ['timeupdate', 'progress', 'playing']) element.dispatchEvent(new Event(type));
    };

    const letThrough = keepPeriodicEventsFromReact(kept);
    fire();
    expect(seen).toEqual(['playing kept', 'timeupdate other', 'progress other', 'playing other']);

    letThrough();
    seen.length = 0;
    fire();
    expect(seen).toEqual(['timeupdate kept', 'progress kept', 'playing kept', 'timeupdate other', 'progress other', 'playing other']);
  });
});
