import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearFaults, setFaults } from '../../faults.ts';
import { startTestStandin, type TestStandin } from '../testkit.ts';

let t: TestStandin;
beforeAll(async () => {
  t = await startTestStandin();
});
afterAll(() => t.close());
afterEach(() => clearFaults());

async function userinfo(body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.base}/ue/userinfo`, { method: 'POST', body, headers });
  return { status: res.status, json: (await res.json()) as { code: number; msg?: string; data?: Record<string, unknown> } };
}

describe('POST /ue/userinfo', () => {
  it('answers 503 to every request under userinfo-error', async () => {
    setFaults(['userinfo-error']);
    for (let i = 0; i < 3; i += 1) expect((await userinfo(new URLSearchParams({ uid: 'demo' }))).status).toBe(503);
  });

  it('answers 503 to every other request under userinfo-flaky, starting with the first', async () => {
    setFaults(['userinfo-flaky']);
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await userinfo(new URLSearchParams({ uid: 'demo' }))).status);
    expect(statuses).toEqual([503, 200, 503, 200]);
  });


  it('returns the demo account with photo, title, background and speech config', async () => {
    const { status, json } = await userinfo(new URLSearchParams({ uid: 'demo', version: '1.0.0' }));
    expect(status).toBe(200);
    expect(json.code).toBe(0);
    const data = json.data!;
    expect(Object.keys(data).length).toBeGreaterThan(2);
    expect(data.AsrList).toEqual({ app_key: 'demo-speech-key', region: 'local' });
    expect(data.photo).toBe(`${t.base}/assets-standin/avatar.webp`);
    expect(data.Background).toBe(`${t.base}/assets-standin/backgrounds/showroom.jpg`);
    expect(data.WebData).toEqual({ use_web_photo: `${t.base}/assets-standin/avatar.webp`, use_web_title: data.title });
    expect(typeof data.title).toBe('string');
    expect(typeof data.app_id).toBe('string');
  });

  it('returns noasr as a valid account without AsrList', async () => {
    const { json } = await userinfo(new URLSearchParams({ uid: 'noasr' }));
    expect(Object.keys(json.data!).length).toBeGreaterThan(2);
    expect(json.data).not.toHaveProperty('AsrList');
  });

  it('returns gov with its own title, a digital-host label and a video background', async () => {
    const { json } = await userinfo(new URLSearchParams({ uid: 'gov' }));
    expect(json.data!.title).not.toBe((await userinfo(new URLSearchParams({ uid: 'demo' }))).json.data!.title);
    expect(json.data!.label).toBe('Digital host');
    expect(json.data!.Background).toMatch(/\.webm$/);
  });

  it('returns an invalid account (at most two fields) for any other id', async () => {
    for (const uid of ['someone', '__proto__', 'constructor']) {
      const { status, json } = await userinfo(new URLSearchParams({ uid }));
      expect(status).toBe(200);
      expect(json).toEqual({ code: 0, data: {} });
    }
  });

  it('answers a missing uid with 400 {code:1,msg:"uid required"}', async () => {
    const { status, json } = await userinfo(new URLSearchParams({ version: '1.0.0' }));
    expect(status).toBe(400);
    expect(json).toEqual({ code: 1, msg: 'uid required' });
  });

  it('accepts a JSON body too', async () => {
    const { json } = await userinfo(JSON.stringify({ uid: 'demo' }), { 'content-type': 'application/json' });
    expect(json.data!.uid).toBe('demo');
  });

  it('builds URLs from the Host the client used, ignoring a malformed one', async () => {
    const viaProxy = await fetch(`${t.base}/ue/userinfo`, { method: 'POST', body: new URLSearchParams({ uid: 'demo' }), headers: { 'x-forwarded-proto': 'https' } });
    expect(((await viaProxy.json()) as { data: { photo: string } }).data.photo).toMatch(/^https:\/\//);
  });
});
