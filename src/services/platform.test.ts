import { describe, expect, it } from 'vitest';
import { createBrowserPlatform, hiddenGraceFor, isIOS, isMessengerApp } from './platform.ts';

const UA = {
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  ipadDesktop: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  androidChrome: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36',
  wechat:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0 Mobile Safari/537.36 XWEB/1160065 MicroMessenger/8.0.47.2560(0x28002F30) WeChat/arm64',
  qqInApp:
    'Mozilla/5.0 (Linux; Android 13; M2012K11AC) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/98.0 MQQBrowser/6.2 TBS/046805 Mobile Safari/537.36 V1_AND_SQ_8.9.0_3726_YYB_D QQ/8.9.0.9045 NetType/WIFI',
  qqBrowser: 'Mozilla/5.0 (Linux; U; Android 13; zh-cn; M2012K11AC) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/109.0 MQQBrowser/14.6 Mobile Safari/537.36',
};

describe('platform detection', () => {
  it('recognises iOS, including iPadOS that claims to be a Mac', () => {
    expect(isIOS(UA.iphoneSafari)).toBe(true);
    expect(isIOS(UA.ipadDesktop, 5)).toBe(true);
    expect(isIOS(UA.ipadDesktop, 0)).toBe(false);
    expect(isIOS(UA.androidChrome)).toBe(false);
  });

  it('recognises messenger in-app browsers but not QQ Browser', () => {
    expect(isMessengerApp(UA.wechat)).toBe(true);
    expect(isMessengerApp(UA.qqInApp)).toBe(true);
    expect(isMessengerApp(UA.qqBrowser)).toBe(false);
    expect(isMessengerApp(UA.androidChrome)).toBe(false);
  });

  it('gives a 3 s hidden grace on iOS and in messengers only', () => {
    expect(hiddenGraceFor(UA.iphoneSafari)).toBe(3000);
    expect(hiddenGraceFor(UA.wechat)).toBe(3000);
    expect(hiddenGraceFor(UA.androidChrome)).toBe(0);
  });
});

describe('the leave guard (beforeunload)', () => {
  const leave = () => {
    const event = new Event('beforeunload', { cancelable: true }) as BeforeUnloadEvent;
    window.dispatchEvent(event);
    return event;
  };

  it('asks for confirmation while on, and not once it is off again', () => {
    const platform = createBrowserPlatform();
    expect(leave().defaultPrevented).toBe(false);
    platform.setLeaveGuard(true);
    const guarded = leave();
    expect(guarded.defaultPrevented).toBe(true);
    platform.setLeaveGuard(true);
    platform.setLeaveGuard(false);
    expect(leave().defaultPrevented).toBe(false);
  });
});

describe('network change signs', () => {
  it('says online, and a change of connection type, but not a change of speed estimates; and stops when asked', () => {
    const connection = Object.assign(new EventTarget(), { type: 'wifi', downlink: 10 });
    Object.defineProperty(navigator, 'connection', { value: connection, configurable: true });
    try {
      const heard: string[] = [];
      const stop = createBrowserPlatform().onNetworkChange((hint) => heard.push(hint));
      window.dispatchEvent(new Event('online'));
      connection.downlink = 1.5;
      connection.dispatchEvent(new Event('change'));
      connection.type = 'cellular';
      connection.dispatchEvent(new Event('change'));
      expect(heard).toEqual(['online', 'connection']);
      stop();
      window.dispatchEvent(new Event('online'));
      connection.type = 'wifi';
      connection.dispatchEvent(new Event('change'));
      expect(heard).toEqual(['online', 'connection']);
    } finally {
      delete (navigator as { connection?: unknown }).connection;
    }
  });

  it('works without navigator.connection (Safari, Firefox): online only', () => {
    const heard: string[] = [];
    const stop = createBrowserPlatform().onNetworkChange((hint) => heard.push(hint));
    window.dispatchEvent(new Event('online'));
    stop();
    expect(heard).toEqual(['online']);
  });
});
