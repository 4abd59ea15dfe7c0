import type { NumberAccounts } from '../../carriers/numbers';
import { latestRegistrationOf, numberOfRcsAgent, ownerOfNumber } from '../../db/business-numbers';
import type { Prisma } from '../../db/prisma';
import type { SecretBox } from '../../secrets/secret-box';
import { numberAccountOf } from './credentials';

/** The registered numbers, read from PostgreSQL with their credentials opened, for the carriers that send from them and verify their callbacks. */
export function numberAccounts(prisma: Prisma, secrets: SecretBox): NumberAccounts {
  return {
    async ofBusiness(business, number) {
      const row = await latestRegistrationOf(prisma, business, number);
      return row && numberAccountOf(secrets, row);
    },
    async holder(number) {
      // An RCS callback names our agent: its number's account signed it.
      const held = number.startsWith('+') ? number : await numberOfRcsAgent(prisma, number);
      const row = held === null ? null : await ownerOfNumber(prisma, held);
      return row && numberAccountOf(secrets, row);
    },
  };
}
