import type { FormEvent, KeyboardEvent, ReactNode } from 'react';
import { useIntl } from 'react-intl';
import { useAppDispatch, useAppSelector } from '../../../app/hooks.ts';
import { chatMessages } from '../../chat/messages.ts';
import { voiceMessages } from '../../voice/messages.ts';
import { selectCallPhase } from '../../voice/voiceSlice.ts';
import {
  callRequested,
  draftChanged,
  MAX_DRAFT_CHARS,
  modeSwitched,
  selectDraft,
  selectInputMode,
  textSubmitted,
} from '../inputSlice.ts';
import { KeyboardIcon, MicIcon, PhoneIcon, SendIcon } from '../../../app/icons.tsx';
import './InputBar.css';

export interface InputBarProps {
  /** The centre of speak mode: the voice feature's Hold to talk button. */
  speakSlot?: ReactNode;
  /** The whole bar in call mode: the voice feature's Hang up and mute controls. */
  callSlot?: ReactNode;
}

/**
 * The bottom bar (docs/requirements.md R19): the keyboard/voice toggle, the centre of the
 * current mode and Start call. In call mode the voice feature's controls take
 * the whole bar.
 */
export function InputBar({ speakSlot, callSlot }: InputBarProps) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const mode = useAppSelector(selectInputMode);
  // Start call tapped, the microphone opening (the voice detector joins the call later).
  const starting = useAppSelector(selectCallPhase) === 'entering';
  if (mode === 'call') return <div className="input-bar input-bar--call">{callSlot}</div>;
  const keyboard = mode === 'keyboard';

  return (
    <div className="input-bar">
      <button
        type="button"
        className="round-btn"
        onClick={() => dispatch(modeSwitched(keyboard ? 'speak' : 'keyboard'))}
        aria-label={intl.formatMessage(keyboard ? voiceMessages.switchToVoice : voiceMessages.switchToKeyboard)}
      >
        {keyboard ? <MicIcon /> : <KeyboardIcon />}
      </button>
      <div className="input-bar__centre">{keyboard ? <TextComposer /> : speakSlot}</div>
      <button
        type="button"
        className={`round-btn input-bar__call${starting ? ' input-bar__call--starting' : ''}`}
        onClick={() => {
          if (!starting) dispatch(callRequested());
        }}
        aria-label={intl.formatMessage(voiceMessages.startCall)}
        aria-busy={starting || undefined}
      >
        <PhoneIcon />
      </button>
    </div>
  );
}

/** Keyboard mode: the text box; Enter or the send icon sends. Blank text is never sent. */
function TextComposer() {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const draft = useAppSelector(selectDraft);
  const blank = draft.trim() === '';
  const send = () => {
    if (!blank) dispatch(textSubmitted(draft));
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    // Enter that confirms an IME composition (Chinese, Japanese, Korean) picks characters; it does not send.
    if (event.nativeEvent.isComposing || event.keyCode === 229) return;
    send();
  };

  return (
    <form className="composer" onSubmit={onSubmit}>
      <input
        className="composer__input"
        type="text"
        value={draft}
        onChange={(event) => dispatch(draftChanged(event.target.value))}
        onKeyDown={onKeyDown}
        aria-label={intl.formatMessage(chatMessages.textInput)}
        placeholder={intl.formatMessage(chatMessages.inputPlaceholder)}
        maxLength={MAX_DRAFT_CHARS}
        enterKeyHint="send"
        autoComplete="off"
        autoCorrect="off"
      />
      <button
        type="submit"
        className="composer__send"
        disabled={blank}
        // Keep focus (and the phone's keyboard) in the text box when the icon is tapped.
        onPointerDown={(event) => event.preventDefault()}
        aria-label={intl.formatMessage(chatMessages.send)}
      >
        <SendIcon />
      </button>
    </form>
  );
}
