/** The voice controls' icons (24×24, currentColor), decorative: each button has its own accessible name. */
const common = { viewBox: '0 0 24 24', 'aria-hidden': true, focusable: false } as const;

export function MicIcon() {
  return (
    <svg {...common}>
      <rect x="8.5" y="3" width="7" height="12" rx="3.5" fill="none" stroke="currentColor" strokeWidth="1.9" />
      <path d="M5.5 11.5a6.5 6.5 0 0 0 13 0M12 18v3" fill="none" stroke="currentColor" strokeWidth="1.9" strokeLinecap="round" />
    </svg>
  );
}

export function MicOffIcon() {
  return (
    <svg {...common}>
      <path
        d="M15.5 10.5V6.5a3.5 3.5 0 0 0-6.6-1.6M8.5 9.5v2a3.5 3.5 0 0 0 5.4 2.9M5.5 11.5a6.5 6.5 0 0 0 10.4 5.2M18.5 11.5c0 .8-.1 1.5-.4 2.2M12 18v3M4 4l16 16"
        fill="none"
        stroke="currentColor"
        strokeWidth="1.9"
        strokeLinecap="round"
      />
    </svg>
  );
}

export function HangUpIcon() {
  return (
    <svg {...common}>
      <path
        d="M12 9c-2.9 0-5.6.8-7.9 2.3-.6.4-.9 1.2-.7 1.9l.5 1.8c.2.8 1 1.3 1.8 1.1l2.6-.6c.7-.2 1.2-.8 1.2-1.5v-1.5a11 11 0 0 1 5 0V14c0 .7.5 1.3 1.2 1.5l2.6.6c.8.2 1.6-.3 1.8-1.1l.5-1.8c.2-.7-.1-1.5-.7-1.9A14.5 14.5 0 0 0 12 9Z"
        fill="currentColor"
      />
    </svg>
  );
}
