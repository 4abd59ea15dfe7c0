import { insideWhatsAppWindow, numberChannelOf, OUTSIDE_WHATSAPP_WINDOW, type NumberChannel } from '../../domain/channels';
import { NO_RCS_SENDER } from '../../domain/rcs';
import { activeRegistration } from '../../db/business-numbers';
import { hasConsent } from '../../db/client-consents';
import { lastWhatsAppInboundAt } from '../../db/messages';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { recordTemplateApproval } from '../../db/templates';
import { Conflict } from '../errors';
import type { MessageRequest } from './request';
import type { TemplateApprovals } from '../templates/approval';

/*
 * Each channel's rules at accept (docs/messages.md, "Channels"), after the sender is chosen: the sender
 * carries the channel; a WhatsApp template goes only to a client who opted in to WhatsApp, and only once
 * WhatsApp approved it; free WhatsApp text only inside the 24-hour window. Each refusal is a 409.
 */

export interface ChannelDeps {
  prisma: Prisma;
  /** The configured carrier: its sender is the shared one, which no business registers. */
  carrier?: { sender: string };
  /** What the deployment's shared sender carries (SHARED_SENDER_CHANNELS). */
  sharedSenderChannels?: readonly NumberChannel[];
  /** The carrier's word on a template's approval, where its API gives it. */
  templateApprovals?: TemplateApprovals;
}

const LABELS: Record<NumberChannel, string> = { sms: 'SMS', mms: 'MMS', whatsapp: 'WhatsApp', rcs: 'RCS' };

/** The sender does not carry what the message needs: RCS's refusal says how to get an RCS sender. */
export const senderLacks = (sender: string, need: NumberChannel) => new Conflict(need === 'rcs' ? NO_RCS_SENDER(sender) : `Sender ${sender} does not carry ${LABELS[need]}`);

/** What `sender` carries: a business number's registration, else the shared sender's. */
async function channelsOf(deps: ChannelDeps, sender: string): Promise<readonly string[]> {
  const shared = deps.sharedSenderChannels ?? ['sms', 'mms'];
  // Most sends go from the shared sender: known without asking the database.
  if (sender === deps.carrier?.sender) return shared;
  const registration = await activeRegistration(deps.prisma, sender);
  return registration?.channels ?? shared;
}

/** What each sender carries, asked once per sender (a campaign's recipients share a few senders). */
export type SenderChannels = (sender: string) => Promise<readonly string[]>;

export function senderChannels(deps: ChannelDeps): SenderChannels {
  const known = new Map<string, Promise<readonly string[]>>();
  return (sender) => {
    if (!known.has(sender)) known.set(sender, channelsOf(deps, sender));
    return known.get(sender)!;
  };
}

export async function checkChannelRules(
  deps: ChannelDeps,
  scope: Scope,
  request: MessageRequest,
  sender: string | null,
  carried: SenderChannels = senderChannels(deps),
  now = new Date(),
): Promise<void> {
  const need = numberChannelOf(request.channel, request.media.length);
  if (sender !== null && !(await carried(sender)).includes(need)) throw senderLacks(sender, need);
  // RCS with media falls back to MMS: its number must carry MMS too.
  if (sender !== null && request.channel === 'rcs' && request.media.length > 0 && !(await carried(sender)).includes('mms')) throw senderLacks(sender, 'mms');
  if (request.channel !== 'whatsapp') return;
  const { template } = request;
  if (template) {
    if (!request.client) throw new Conflict('A WhatsApp template goes only to a client who opted in to WhatsApp: name the client');
    if (!(await hasConsent(deps.prisma, request.client.pk, 'whatsapp'))) {
      throw new Conflict(`Client ${request.client.id} has not opted in to WhatsApp: record its consent first (PUT /clients/${request.client.id}/consents/whatsapp)`);
    }
    let approval = template.row.approval;
    // Asked again while not approved: WhatsApp's review takes minutes to days.
    const asked = approval !== 'approved' && deps.templateApprovals ? await deps.templateApprovals.ask(scope.business, sender, template.stored.ref) : null;
    if (asked) {
      approval = asked;
      await recordTemplateApproval(deps.prisma, template.row.pk, approval, now);
    }
    if (approval !== 'approved') throw new Conflict(`Template ${template.row.id} is not approved by WhatsApp (${approval})`);
    // The template goes whatever the window (with text of its own, as the fallback for a window closed when it is due).
    return;
  }
  const last = sender === null ? null : await lastWhatsAppInboundAt(deps.prisma, { ...scope, phone: request.phone, sender });
  if (!insideWhatsAppWindow(last, now)) throw new Conflict(OUTSIDE_WHATSAPP_WINDOW);
}
