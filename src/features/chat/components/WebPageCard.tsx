import { useState } from 'react';
import { useIntl } from 'react-intl';
import { chatMessages } from '../messages.ts';
import { isHttpUrl } from '../model.ts';
import { ChevronIcon, CloseIcon, ExternalIcon, GlobeIcon } from './icons.tsx';
import { Layer } from './Layer.tsx';
import './parts.css';

/**
 * The iframe's sandbox. Scripts may run (pages need them) but in an opaque
 * origin: never allow-same-origin together with allow-scripts (the page could
 * lift its own sandbox), never allow-top-navigation (it could navigate the app away).
 */
export const WEB_PAGE_SANDBOX = 'allow-scripts allow-forms allow-popups';

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** A web page in a message: a card that opens the page in a sheet, with a link out. */
export function WebPageCard({ url }: { url: string }) {
  const intl = useIntl();
  const [open, setOpen] = useState(false);
  if (!isHttpUrl(url)) return null;
  const host = hostOf(url);
  return (
    <>
      <button type="button" className="web-card" onClick={() => setOpen(true)}>
        <span className="web-card__icon">
          <GlobeIcon />
        </span>
        <span className="web-card__text">
          <span className="web-card__title">{intl.formatMessage(chatMessages.webPage)}</span>
          <span className="web-card__host">{host}</span>
        </span>
        <span className="web-card__chevron">
          <ChevronIcon direction="right" />
        </span>
      </button>
      {open && <WebPageSheet url={url} host={host} onClose={() => setOpen(false)} />}
    </>
  );
}

function WebPageSheet({ url, host, onClose }: { url: string; host: string; onClose: () => void }) {
  const intl = useIntl();
  return (
    <Layer className="sheet-layer" label={host} onClose={onClose}>
      <div className="sheet-layer__backdrop" onClick={onClose} aria-hidden="true" />
      <div className="web-sheet">
        <div className="web-sheet__bar">
          <span className="web-sheet__host">
            <GlobeIcon />
            <span>{host}</span>
          </span>
          <a className="web-sheet__out" href={url} target="_blank" rel="noopener noreferrer">
            <ExternalIcon />
            {intl.formatMessage(chatMessages.openInBrowser)}
          </a>
          <button type="button" className="web-sheet__close" onClick={onClose} aria-label={intl.formatMessage(chatMessages.close)}>
            <CloseIcon />
          </button>
        </div>
        <iframe
          className="web-sheet__frame"
          src={url}
          title={host}
          sandbox={WEB_PAGE_SANDBOX}
          referrerPolicy="no-referrer"
          allow="camera 'none'; microphone 'none'; geolocation 'none'; payment 'none'"
        />
      </div>
    </Layer>
  );
}
