/**
 * A small statechart in the manner of XState (its config objects and its pure
 * `transition(state, event)`), without the dependency: parallel regions, each with named
 * states and, per state, the events that leave it (`on: { event: { guard, target, actions } }`).
 *
 * An event goes to every region at once. Each region picks its transition against the
 * state as it was before the event (the regions are parallel, none sees another's move
 * first); then the chosen transitions' actions run in the regions' order, each taking the
 * machine's value and returning the next, and each region moves to its target.
 */

/** One way out of a state: taken when its guard holds (or it has none). */
export interface Transition<M, E, S extends string> {
  readonly guard?: (before: M, event: E) => boolean;
  /** The state the region goes to; a function when the region's own rules decide (see the sentence region). */
  readonly target?: S | ((after: M, event: E) => S);
  readonly actions?: readonly ((m: M, event: E) => M)[];
}

export type On<M, E extends { type: string }, S extends string> = {
  readonly [K in E['type']]?: Transition<M, Extract<E, { type: K }>, S> | readonly Transition<M, Extract<E, { type: K }>, S>[];
};

export interface Region<M, E extends { type: string }, S extends string> {
  /** Every state, with the events that leave it (or act in it). */
  readonly states: { readonly [K in S]: { readonly on: On<M, E, S> } };
  /** The region's state in the machine's value, and the value with it moved. */
  readonly get: (m: M) => S;
  readonly set: (m: M, state: S) => M;
}

type AnyTransition<M, E> = Transition<M, E, string>;

function pick<M, E>(on: AnyTransition<M, E> | readonly AnyTransition<M, E>[] | undefined, before: M, event: E) {
  const options: readonly AnyTransition<M, E>[] = on === undefined ? [] : Array.isArray(on) ? on : [on as AnyTransition<M, E>];
  return options.find((t) => t.guard === undefined || t.guard(before, event));
}

/** The machine's value after `event`, every region having taken the transition its state has for it. */
export function transition<M, E extends { type: string }>(regions: readonly Region<M, E, string>[], before: M, event: E): M {
  const chosen = regions.map((region) => {
    const on = region.states[region.get(before)]!.on as Record<string, AnyTransition<M, E> | readonly AnyTransition<M, E>[] | undefined>;
    return [region, pick(on[event.type], before, event)] as const;
  });
  let m = before;
  for (const [region, t] of chosen) {
    if (!t) continue;
    for (const action of t.actions ?? []) m = action(m, event);
    if (t.target !== undefined) m = region.set(m, typeof t.target === 'function' ? t.target(m, event) : t.target);
  }
  return m;
}
