import { forbidsMessage } from '../../src/domain/opt-outs';
import { OPT_OUT_CASES, type World } from './opt-out-cases';

/*
 * Whether an opt-out forbids a message (src/domain/opt-outs.ts), no database:
 * test/messages/opt-out-sql.test.ts proves the SQL says the same for every row.
 */

const WORLD: World = { phone: '+15550000001', otherPhone: '+15550000002', business: 'acme', otherBusiness: 'globex', sender: '+15550009001', otherSender: '+15550009002' };

test.each(OPT_OUT_CASES)('%s', (_name, make, forbids) => {
  const { record, message } = make(WORLD);
  expect(forbidsMessage(record, { ...message, business: WORLD.business })).toBe(forbids);
});
