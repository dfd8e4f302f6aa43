/**
 * Styles laid over the app's call by the tools beside bench/call-cost.mjs (variants.mjs,
 * trace.mjs): a part hidden once the call has started, or a cut undone, to see what it costs
 * without a rebuild.
 */
// layStyle runs in the browser.
/* global document */

/** A style laid over the app (once its call has started, unless FROM_THE_START); null: the app as built. */
export const VARIANTS = {
  app: null,
  floor: null,
  // The parts over the video.
  'no-log': '.live__log-slot { display: none !important; }',
  'no-chrome': '.live__top, .live__bottom { display: none !important; }',
  // Nothing over the video: what the app's main thread costs with no page to draw.
  'no-ui': '.live__log-slot, .live__top, .live__bottom { display: none !important; }',
  'no-scrims': '.live__top, .live__bottom { background: none !important; }',
  'no-shadows': '.chat * { box-shadow: none !important; text-shadow: none !important; }',
  'no-animations': '* { animation: none !important; transition: none !important; }',
  // The cuts made, undone.
  mask: '.chat:not(.chat--empty) .chat__scroller { -webkit-mask-image: linear-gradient(180deg, transparent 0, #000 28px); mask-image: linear-gradient(180deg, transparent 0, #000 28px); }',
  'fill-both': '.msg, .live__top, .live__bottom { animation-fill-mode: both !important; }',
  // A full chat log's height follows its content again (useStickToBottom pins it, contained).
  unpinned: '.chat__scroller { contain: none !important; height: auto !important; }',
};
/** Variants laid from the page's first paint, not once calling: an animation's fill mode counts from its start. */
export const FROM_THE_START = new Set(['fill-both']);

/**
 * Adds `css` to the page: at once when `fromTheStart`, else once the call's Hang up button
 * shows (the pre-session screen needs the chrome a variant may hide).
 */
function layStyle({ css, fromTheStart }) {
  const timer = setInterval(() => {
    const calling = [...document.querySelectorAll('button')].some((b) => b.textContent?.includes('Hang up') || b.getAttribute('aria-label') === 'Hang up');
    if (!document.head || (!fromTheStart && !calling)) return;
    clearInterval(timer);
    const style = document.createElement('style');
    style.textContent = css;
    document.head.append(style);
  }, fromTheStart ? 0 : 250);
}

/** The client a variant's call runs: the floor's page, or the app's (with or without a style laid over it). */
export const clientOf = (name) => (name === 'floor' ? 'floor' : 'app');

/** The runCall `prepare` hook that lays variant `name`'s style over the app (undefined: none to lay). */
export function prepareVariant(name) {
  const css = VARIANTS[name];
  return css ? (page) => page.addInitScript(layStyle, { css, fromTheStart: FROM_THE_START.has(name) }) : undefined;
}
