import { useAppSelector } from '../../../app/hooks.ts';
import { environment } from '../../../app/environments.ts';
import { selectUserId } from '../accountSlice.ts';

/** The environment's special account (spec: the AI-summary notice and the digital-host label). */
export function useIsSpecialAccount(): boolean {
  const userId = useAppSelector(selectUserId);
  return environment.specialAccountId !== '' && userId === environment.specialAccountId;
}
