import { Component, type ReactNode } from 'react';
import { createLogger } from '../../../services/logger.ts';

const log = createLogger('replay');

interface Props {
  /** A new value clears a caught error: the next replayed state gets its own try. */
  resetKey: unknown;
  /** Shown instead of the screen when it cannot render this state. */
  fallback: (error: Error) => ReactNode;
  children: ReactNode;
}

/**
 * A log from another app version may hold a state this version's components
 * cannot render. That must cost the one screen, not the viewer: its controls,
 * timeline and entries keep working, and the next state is tried afresh.
 */
interface State {
  error: Error | null;
  resetKey: unknown;
}

export class ScreenBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey === state.resetKey ? null : { error: null, resetKey: props.resetKey };
  }

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown) {
    log.warn('replayed state could not be rendered', { error: String(error) });
  }

  override render() {
    return this.state.error ? this.props.fallback(this.state.error) : this.props.children;
  }
}
