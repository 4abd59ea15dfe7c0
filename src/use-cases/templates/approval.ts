import type { NumberCarriers } from '../../carriers/numbers';
import type { TemplateApproval, TemplateRef } from '../../carriers/types';
import { activeNumbersOf } from '../../db/business-numbers';
import type { Prisma } from '../../db/prisma';

/** Asks the carrier of the account that sends a business's messages what WhatsApp said of a template. */
export interface TemplateApprovals {
  /** null: the carrier has no approval API (the business's word stands); `sender` null: the business's first number's account, else the deployment's. */
  ask(business: string, sender: string | null, ref: TemplateRef): Promise<TemplateApproval | null>;
}

export function templateApprovalsOf(prisma: Prisma, carriers: NumberCarriers): TemplateApprovals {
  return {
    async ask(business, sender, ref) {
      const from = sender ?? (await activeNumbersOf(prisma, business))[0]?.number ?? null;
      const carrier = await carriers.forSender(business, from);
      if (!carrier.templateApproval) return null;
      try {
        return await carrier.templateApproval(ref);
      } catch {
        // Unreachable now: not known, asked again at the next send.
        return 'unknown';
      }
    },
  };
}
