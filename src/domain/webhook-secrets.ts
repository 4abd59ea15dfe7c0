/*
 * A webhook subscription's secrets: after a rotation the previous one keeps signing beside the new one
 * until its expiry, so a receiver can switch over; past it, it signs nothing and a reseal drops it.
 */

export interface PreviousSecret {
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

export function previousSecretSigns(subscription: PreviousSecret, now: Date): boolean {
  return subscription.previousSecret !== null && subscription.previousSecretExpiresAt !== null && subscription.previousSecretExpiresAt > now;
}
