/**
 * A reply of about 25 s of the avatar's speech (espeak-ng at its default rate), for what
 * must hold over a long reply: the echo tests (tests/e2e/echo.spec.ts, the Firefox lane)
 * and bench/echo.mjs. The stand-in says it through POST /__standin/say.
 */
export const LONG_REPLY = [
  'Welcome to our flagship store. Let me tell you about everything we have this season.',
  'On the ground floor you will find shoes, bags and accessories from more than forty brands.',
  'The first floor has clothing for women and men, with a tailoring service that takes about a week.',
  'Children are on the second floor, next to the cafe, which serves breakfast until eleven.',
  'Members collect points on every purchase and get free delivery on orders over fifty dollars.',
].join(' ');
