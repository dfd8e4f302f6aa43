/** The app's icons (24×24, currentColor), decorative: each button carries its own accessible name. */
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

export function KeyboardIcon() {
  return (
    <svg {...common}>
      <rect x="2.5" y="5.5" width="19" height="13" rx="2.5" fill="none" stroke="currentColor" strokeWidth="1.9" />
      <path
        d="M6.5 9.5h.01M10 9.5h.01M13.5 9.5h.01M17 9.5h.01M6.5 12.5h.01M10 12.5h.01M13.5 12.5h.01M17 12.5h.01M8 15.5h8"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
      />
    </svg>
  );
}

export function PhoneIcon() {
  return (
    <svg {...common}>
      <path
        d="M6.6 3.5h2.6l1.4 4-2 1.4a11 11 0 0 0 6.5 6.5l1.4-2 4 1.4v2.6a2 2 0 0 1-2.2 2A16.5 16.5 0 0 1 4.6 5.7a2 2 0 0 1 2-2.2Z"
        fill="currentColor"
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

export function SendIcon() {
  return (
    <svg {...common}>
      <path d="M4 11.6 19.6 4.4c.6-.3 1.2.3.9.9L13.3 20.9c-.3.6-1.1.5-1.3-.1l-1.7-6.1-6.1-1.7c-.6-.2-.7-1-.2-1.4Z" fill="currentColor" />
    </svg>
  );
}
