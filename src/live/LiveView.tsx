import { ChatLog } from '../features/chat/components/ChatLog.tsx';
import { InputBar } from '../features/input/components/InputBar.tsx';
import { LiveScreen } from '../features/session/components/LiveScreen.tsx';
import { StatsPanel } from '../features/stats/components/StatsPanel.tsx';
import { CallControls } from '../features/voice/components/CallControls.tsx';
import { HoldToTalkButton } from '../features/voice/components/HoldToTalkButton.tsx';

export interface LiveViewProps {
  /** Mounted under the pre-session screen while the session connects (LiveScreen's `covered`). */
  covered: boolean;
}

/** The live screen with its chat log, input bar and stats panel: the visitor's, and the replay viewer's. */
export function LiveView({ covered }: LiveViewProps) {
  return (
    <LiveScreen
      covered={covered}
      chatLog={<ChatLog />}
      inputBar={<InputBar speakSlot={<HoldToTalkButton />} callSlot={<CallControls />} />}
      overlay={<StatsPanel />}
    />
  );
}
