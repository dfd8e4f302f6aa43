/**
 * A reply of about 25 s of the avatar's speech (espeak-ng at its default rate), for what
 * must hold over a long reply: the echo tests (tests/e2e/echo.spec.ts, the Firefox lane)
 * and bench/echo.mjs. The stand-in says it through POST /__standin/say.
 */
export { STORE_TOUR as LONG_REPLY } from '../../server/replies/knowledge.data.ts';
