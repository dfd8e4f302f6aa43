import { selectAlert } from '../features/notices/noticesSlice.ts';
import { AlertDialog } from '../features/notices/components/AlertDialog.tsx';
import { Toasts } from '../features/notices/components/Toasts.tsx';
import { LanguageDialog } from '../features/locale/components/LanguageDialog.tsx';
import { selectLangPickerOpen } from '../features/locale/localeSlice.ts';
import { HomeScreen } from '../features/session/components/HomeScreen.tsx';
import type { LiveSlots } from '../features/session/components/LiveScreen.tsx';
import { AccessGate } from './AccessGate.tsx';
import { useAppSelector } from './hooks.ts';

/**
 * The home route. The chat log, the input bar and the stats panel are passed
 * in as slots (see main.tsx) so the live screen doesn't import those features.
 * Notices live outside the gate: the invalid-user toast must show when nothing else does.
 */
export function App(slots: LiveSlots) {
  const pickerOpen = useAppSelector(selectLangPickerOpen);
  const alertOpen = useAppSelector(selectAlert) !== null;
  return (
    <>
      <div className="app" inert={pickerOpen || alertOpen}>
        <AccessGate>
          <HomeScreen {...slots} />
        </AccessGate>
      </div>
      <LanguageDialog />
      <AlertDialog />
      <Toasts />
    </>
  );
}
