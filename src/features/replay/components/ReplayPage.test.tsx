import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../../test/render.tsx';
import type { LogEntry } from '../../sessionLog/types.ts';
import log from '../fixtures/session-log.json';
import ReplayPage from './ReplayPage.tsx';
import { stepDelay } from './usePlayback.ts';

const LOG_TEXT = JSON.stringify(log);
const ENTRIES = log.entries as unknown as LogEntry[];
const LAST = ENTRIES.length;

async function openLog(text = LOG_TEXT) {
  const user = userEvent.setup();
  renderWithProviders(<ReplayPage />);
  await user.upload(screen.getByLabelText('Open session log'), new File([text], 'log.json', { type: 'application/json' }));
}

/** Advances fake time in steps, letting React commit and re-arm the playback timer between them. */
async function tick(total: number, step = 1) {
  for (let elapsed = 0; elapsed < total; elapsed += step) {
    await act(async () => {
      await vi.advanceTimersByTimeAsync(step);
    });
  }
}

const position = () => screen.getByText(/^Entry \d+ of \d+/);
const indexOfType = (type: string) => ENTRIES.findIndex((e) => e.kind === 'action' && e.action.type === type);
const ICE_ALERT = ENTRIES.findIndex((e) => e.kind === 'action' && JSON.stringify(e.action.payload ?? null).includes('error.iceError'));

// Each test renders the whole app in jsdom: seconds each on a loaded 2-core machine.
describe('replay viewer', { timeout: 20_000 }, () => {
  afterEach(() => vi.useRealTimers());

  it('asks for a file, and says why a file cannot be replayed', async () => {
    await openLog('{"schemaVersion":2,"entries":[]}');
    expect(await screen.findByText(/This file cannot be replayed/)).toHaveTextContent('This file cannot be replayed: unsupported schema version 2');
    expect(screen.getByText(/This file cannot be replayed/)).toHaveAttribute('role', 'alert');
    expect(screen.getByText(/Open a session log file/)).toBeInTheDocument();
  });

  it('opens a log at its first entry with who, where and when', async () => {
    await openLog();
    expect(await screen.findByText(/^Entry 1 of 48, 0:00\.000$/)).toBeInTheDocument();
    expect(screen.getByText(/Account demo, device H5f00dfeed0000000000000000000001, app 1\.0\.0 \(local\)/)).toBeInTheDocument();
    const entries = screen.getByLabelText('Entries');
    expect(entries.querySelector('[aria-current="step"]')).toHaveTextContent('store');
  });

  it('steps, seeks with the timeline and jumps to a marked error', async () => {
    await openLog();
    // fireEvent and text/label queries: role queries over the whole app are very slow in jsdom.
    fireEvent.click(await screen.findByText('Step forward'));
    expect(position()).toHaveTextContent('Entry 2 of 48');
    fireEvent.click(screen.getByText('Step back'));
    expect(position()).toHaveTextContent('Entry 1 of 48');

    fireEvent.change(screen.getByLabelText('Timeline'), { target: { value: String(LAST - 1) } });
    expect(position()).toHaveTextContent(`Entry ${LAST} of 48`);

    const marks = screen.getByLabelText('Errors and state changes');
    const iceError = within(marks).getByLabelText(/alert error\.iceError/);
    fireEvent.click(iceError);
    expect(position()).toHaveTextContent(`Entry ${ICE_ALERT + 1} of 48`);
    expect(iceError).toHaveAttribute('aria-current', 'step');
    expect(iceError).toHaveClass('replay-timeline__mark--error');
    expect(within(marks).getByLabelText(/session idle → connecting/)).toHaveClass('replay-timeline__mark--state');
  });

  it('renders the real app UI from the replayed state', async () => {
    await openLog();
    // At the first entry the account is not loaded yet: the app shows nothing but its splash.
    const frame = await screen.findByLabelText('The visitor’s screen');
    expect(within(frame).queryByText('Start chat')).not.toBeInTheDocument();

    fireEvent.change(screen.getByLabelText('Timeline'), { target: { value: String(indexOfType('session/videoPlaying')) } });
    expect(await within(frame).findByText('End chat')).toBeInTheDocument();

    fireEvent.change(screen.getByLabelText('Timeline'), { target: { value: String(indexOfType('stats/statsSampled') + 1) } });
    const stats = within(frame).getByLabelText('Network stats');
    expect(within(stats).getByLabelText('Downstream')).toHaveTextContent('1,250 kbps');
    expect(within(stats).getByLabelText('Quality')).toHaveTextContent('Excellent');
    // the fixture was recorded before the route was sampled: it reads as none
    expect(within(stats).getByLabelText('Route')).toHaveTextContent('—');

    fireEvent.click(screen.getByLabelText(/alert error\.iceError/));
    expect(within(frame).getByText('WebRTC connection error, please try again later!').closest('[role="alert"]')).not.toBeNull();
  });

  it('shows a hostile log’s control and direction characters as visible escapes, in the entries, the meta and the visitor’s screen', async () => {
    const hostile = JSON.parse(LOG_TEXT) as { deviceId: string; entries: { kind: string; action?: { type: string; payload?: { message?: { text?: string } } }; data?: unknown; seq?: number; t?: number }[] };
    hostile.deviceId = 'H5evil\r\x1b]0;title\x07';
    const alert = hostile.entries.find((e) => e.action?.type === 'notices/alertShown' && e.action.payload?.message?.text)!;
    alert.action!.payload!.message!.text = 'no avatar \u202eelbaliava\u202c \x9b31m';
    hostile.entries.push({ seq: 9_999, t: 40_000, kind: 'error', data: { feature: 'media', message: 'ICE\x1b[2J failed\u2066' } });
    await openLog(JSON.stringify(hostile));
    expect(await screen.findByText(/Account demo, device H5evil\\x0d\\x1b\]0;title\\x07,/)).toBeInTheDocument();

    const alertIndex = hostile.entries.indexOf(alert);
    fireEvent.change(screen.getByLabelText('Timeline'), { target: { value: String(alertIndex) } });
    const current = screen.getByLabelText('Entries').querySelector('[aria-current="step"]')!;
    expect(current).toHaveTextContent('alert "no avatar \\\\u202eelbaliava\\\\u202c \\\\x9b31m"');
    // The replayed app shows the server's text as the visitor's alert did, made visible.
    const frame = screen.getByLabelText('The visitor’s screen');
    expect(await within(frame).findByText('no avatar \\u202eelbaliava\\u202c \\x9b31m')).toBeInTheDocument();

    fireEvent.change(screen.getByLabelText('Timeline'), { target: { value: String(hostile.entries.length - 1) } });
    expect(screen.getByLabelText('Entries').querySelector('[aria-current="step"]')).toHaveTextContent('error media: ICE\\x1b[2J failed\\u2066');
    // Nothing raw anywhere on the page: no C0 (but whitespace React writes), DEL, C1 or direction character.
    // eslint-disable-next-line no-control-regex -- what must not be shown
    expect(document.body.textContent).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/);
  });

  it('says why a file cannot be replayed with its characters made visible too', async () => {
    await openLog('{"schemaVersion":"2\\u202e1","entries":[]}');
    expect(await screen.findByText(/This file cannot be replayed/)).toHaveTextContent('unsupported schema version "2\\\\u202e1"');
  });

  it('plays in the log’s own rhythm, faster at higher speeds, and pauses', async () => {
    await openLog();
    fireEvent.change(await screen.findByLabelText('Speed'), { target: { value: '8' } });
    vi.useFakeTimers();
    fireEvent.click(screen.getByText('Play'));
    // entries 1–4 share t = 0; entry 5 comes 84 ms later, i.e. 10.5 ms at 8×, and entry 6 at the same time
    await tick(5);
    expect(position()).toHaveTextContent('Entry 4 of 48');
    await tick(12);
    expect(position()).toHaveTextContent('Entry 6 of 48');

    fireEvent.click(screen.getByText('Pause'));
    await tick(2000, 100);
    expect(position()).toHaveTextContent('Entry 6 of 48');

    // the rest: about 30 s of log time, idle stretches capped at 3 s, played at 8×
    fireEvent.click(screen.getByText('Play'));
    await tick(10_000, 100);
    expect(position()).toHaveTextContent('Entry 48 of 48');
    expect(screen.getByText('Play')).toBeInTheDocument();
  }, 30_000);
});

describe('stepDelay', () => {
  it('scales the gap to the next entry by the speed and shortens idle stretches', () => {
    const entries = [
      { seq: 0, t: 0, kind: 'log', data: null },
      { seq: 1, t: 400, kind: 'log', data: null },
      { seq: 2, t: 60_400, kind: 'log', data: null },
    ] as const;
    expect(stepDelay([...entries], 0, 1)).toBe(400);
    expect(stepDelay([...entries], 0, 4)).toBe(100);
    expect(stepDelay([...entries], 1, 2)).toBe(1500);
    expect(stepDelay([...entries], 2, 1)).toBe(0);
  });
});
