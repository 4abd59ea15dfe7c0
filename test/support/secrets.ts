import { generateNamedKey, parseKeyList } from '../../src/config/key-list';
import { SecretBox } from '../../src/secrets/secret-box';

/** A SecretBox under a fresh key, for activities and apps a test builds by hand. */
export function testSecretBox(id = 'test-1'): SecretBox {
  return new SecretBox(parseKeyList('SECRETS_KEY', generateNamedKey(id)));
}
