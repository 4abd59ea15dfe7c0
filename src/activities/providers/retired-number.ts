import { refusedForGood } from './refusal';

/** A message whose number was retired and that has no sender left: refused for good, like a carrier's refusal. */
export const retiredNumberFailure = <T>(choose: () => Promise<T>): Promise<T> => refusedForGood('number-retired', choose);
