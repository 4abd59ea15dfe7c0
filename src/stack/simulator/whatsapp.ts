import { WHATSAPP_WINDOW_MS } from '../../domain/channels';

/*
 * WhatsApp as Twilio carries it: addresses prefixed `whatsapp:`, and the customer-service window — a
 * free-form message may go to a client only within 24 hours of the client's last WhatsApp message to
 * that sender (outside it Twilio accepts the request, then fails the message with 63016).
 */

export type SimulatedChannel = 'sms' | 'whatsapp' | 'rcs';

const WHATSAPP_PREFIX = 'whatsapp:';
const RCS_PREFIX = 'rcs:';

/** A Twilio address (`whatsapp:+14155550100`, `rcs:+14155550100` or `+14155550100`) as its channel and number (an RCS sender: its agent). */
export function addressOf(value: string): { channel: SimulatedChannel; number: string } {
  if (value.startsWith(WHATSAPP_PREFIX)) return { channel: 'whatsapp', number: value.slice(WHATSAPP_PREFIX.length) };
  if (value.startsWith(RCS_PREFIX)) return { channel: 'rcs', number: value.slice(RCS_PREFIX.length) };
  return { channel: 'sms', number: value };
}

/** The Twilio address of `number` on `channel`. */
export const addressFor = (channel: SimulatedChannel, number: string) => (channel === 'whatsapp' ? `${WHATSAPP_PREFIX}${number}` : channel === 'rcs' ? `${RCS_PREFIX}${number}` : number);

/** Each (our sender, client) pair's last inbound WhatsApp message, which opens the window. */
export class WhatsAppWindows {
  private readonly lastInbound = new Map<string, number>();

  constructor(private readonly windowMs = WHATSAPP_WINDOW_MS) {}

  private static key(ours: string, client: string): string {
    return `${ours}\n${client}`;
  }

  /** The client wrote to `ours` at `at` (null: never, which closes the window). */
  set(ours: string, client: string, at: Date | null): void {
    if (at === null) this.lastInbound.delete(WhatsAppWindows.key(ours, client));
    else this.lastInbound.set(WhatsAppWindows.key(ours, client), at.getTime());
  }

  lastInboundAt(ours: string, client: string): Date | null {
    const at = this.lastInbound.get(WhatsAppWindows.key(ours, client));
    return at === undefined ? null : new Date(at);
  }

  isOpen(ours: string, client: string, now = Date.now()): boolean {
    const at = this.lastInbound.get(WhatsAppWindows.key(ours, client));
    return at !== undefined && now - at < this.windowMs;
  }
}
