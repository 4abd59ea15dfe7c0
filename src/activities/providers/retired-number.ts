import { refusedForGood } from './refusal';

/** A message whose number was retired and that has no sender left: refused for good, like a carrier's refusal. */
export const retiredNumberFailure = <T>(choose: () => Promise<T>): Promise<T> => refusedForGood('number-retired', choose);

/** The refusal's code when a sender's A2P registration forbids the message (docs/messages.md). */
export const A2P_REGISTRATION_CODE = 'a2p-registration';

/** A message whose sender's A2P registration forbids it when due: refused for good, never handed over. */
export const registrationFailure = <T>(check: () => Promise<T>): Promise<T> => refusedForGood(A2P_REGISTRATION_CODE, check);
