/*
 * RCS as Twilio carries it, in the simulator: a message sent through a Messaging Service with a
 * `FallbackFrom` goes by RCS from the service's RCS sender where the handset takes RCS, else Twilio
 * falls back to SMS/MMS from `FallbackFrom`. Each Messaging Service `MG…` of the simulator holds the RCS
 * sender `rcs:sim_MG…` (what a business number registers as its `rcs_agent`). A handset takes RCS unless
 * its number ends in 9 (`+14155550199`: an incapable handset), the simulator's documented rule. On RCS the
 * client is `rcs:+1…` in Twilio's records and callbacks, our sender `rcs:<agent>`; read receipts follow
 * delivery, as on WhatsApp; a suggested reply tapped comes back with `ButtonText` and `ButtonPayload`.
 */

/** The RCS sender the simulator's Messaging Service `service` holds. */
export const rcsSenderOf = (service: string) => `rcs:sim_${service}`;

/** The simulator's rule: a handset takes RCS unless its number ends in 9. */
export const takesRcs = (phone: string) => !phone.endsWith('9');

/** A suggested reply offered by an RCS message (Twilio's quick-reply action): its title and id. */
export interface OfferedReply {
  title: string;
  id: string;
}

/** The quick-reply actions of a content's types (`twilio/quick-reply`, `twilio/card`), as offered on RCS. */
export function offeredReplies(types: Record<string, unknown> | undefined): OfferedReply[] {
  const rich = (types?.['twilio/quick-reply'] ?? types?.['twilio/card']) as { actions?: unknown } | undefined;
  if (!Array.isArray(rich?.actions)) return [];
  return rich.actions.flatMap((action: { title?: unknown; id?: unknown } | null) =>
    typeof action?.title === 'string' ? [{ title: action.title, id: typeof action.id === 'string' ? action.id : action.title }] : [],
  );
}

/** What an RCS send (one with FallbackFrom through a service) became: RCS from the service's sender, or the SMS fallback. */
export function rcsRoute(service: string, fallbackFrom: string, to: string): { channel: 'rcs' | 'sms'; from: string; to: string } {
  return takesRcs(to) ? { channel: 'rcs', from: rcsSenderOf(service), to: `rcs:${to}` } : { channel: 'sms', from: fallbackFrom, to };
}
