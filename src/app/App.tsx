import { selectAlert } from '../features/notices/noticesSlice.ts';
import { AlertDialog } from '../features/notices/components/AlertDialog.tsx';
import { Toasts } from '../features/notices/components/Toasts.tsx';
import { LanguageDialog } from '../features/locale/components/LanguageDialog.tsx';
import { selectLangPickerOpen } from '../features/locale/localeSlice.ts';
import { HomeScreen } from '../features/session/components/HomeScreen.tsx';
import type { LiveScreenComponent } from '../features/session/components/HomeScreen.tsx';
import { AccessGate } from './AccessGate.tsx';
import { useAppSelector } from './hooks.ts';

/**
 * The home route. The live screen (src/live/LiveView.tsx, with the chat log, the input bar
 * and the stats panel) is passed in: main.tsx gives the live chunk's once it is here, the
 * replay viewer its own import of it. Notices live outside the gate: the invalid-user
 * toast must show when nothing else does.
 */
export function App({ live }: { live: LiveScreenComponent }) {
  const pickerOpen = useAppSelector(selectLangPickerOpen);
  const alertOpen = useAppSelector(selectAlert) !== null;
  return (
    <>
      <div className="app" inert={pickerOpen || alertOpen}>
        <AccessGate>
          <HomeScreen live={live} />
        </AccessGate>
      </div>
      <LanguageDialog />
      <AlertDialog />
      <Toasts />
    </>
  );
}
