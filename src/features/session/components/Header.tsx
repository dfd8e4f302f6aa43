import type { ReactNode } from 'react';
import { LanguageButton } from '../../locale/components/LanguageButton.tsx';
import './Header.css';

interface HeaderProps {
  /** Left side: the assistant's identity on the live screen; empty before the session. */
  start?: ReactNode;
  /** Extra actions after the Language button (End chat on the live screen). */
  actions?: ReactNode;
  /** A globe-only Language button, for a crowded header. */
  compactLanguage?: boolean;
}

/** The top bar of both home-screen states, inside the safe area, over a dark scrim. */
export function Header({ start, actions, compactLanguage = false }: HeaderProps) {
  return (
    <header className="app-header">
      <div className="app-header__start">{start}</div>
      <div className="app-header__actions">
        <LanguageButton compact={compactLanguage} />
        {actions}
      </div>
    </header>
  );
}
