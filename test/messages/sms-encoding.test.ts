import { smsShape } from '../../src/use-cases/messages/sms-encoding';

/* How a text travels as SMS, as the message view shows it from accept: GSM-7 or UCS-2, and its parts. */

const a = (n: number) => 'a'.repeat(n);
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

test.each<[string, string, ReturnType<typeof smsShape>]>([
  ['plain ASCII', 'Hello Ada, your order has shipped.', { encoding: 'GSM-7', units: 34, segments: 1 }],
  ['160 GSM characters: one part', a(160), { encoding: 'GSM-7', units: 160, segments: 1 }],
  ['161 GSM characters: two parts of up to 153', a(161), { encoding: 'GSM-7', units: 161, segments: 2 }],
  ['306 GSM characters: two full parts', a(306), { encoding: 'GSM-7', units: 306, segments: 2 }],
  ['307 GSM characters: three parts', a(307), { encoding: 'GSM-7', units: 307, segments: 3 }],
  ['the whole basic alphabet (127 characters, no escape)', BASIC, { encoding: 'GSM-7', units: 127, segments: 1 }],
  ['€ is in the extension table: two septets', 'Total: 5€', { encoding: 'GSM-7', units: 10, segments: 1 }],
  ['every extension character counts two', '^{}\\[~]|€\f', { encoding: 'GSM-7', units: 20, segments: 1 }],
  ['80 × € is 160 septets: one part', '€'.repeat(80), { encoding: 'GSM-7', units: 160, segments: 1 }],
  ['159 characters and one €: 161 septets, two parts', a(159) + '€', { encoding: 'GSM-7', units: 161, segments: 2 }],
  ['an extension character is not split between parts', a(152) + '€' + a(152), { encoding: 'GSM-7', units: 306, segments: 3 }],
  ['Greek capitals of the GSM alphabet', 'ΔΦΓΛΩΠΨΣΘΞ', { encoding: 'GSM-7', units: 10, segments: 1 }],
  ['a Greek capital outside it (Alpha, not Latin A)', 'ΑΔ', { encoding: 'UCS-2', units: 2, segments: 1 }],
  ['Greek lower case is not in it', 'αβγ', { encoding: 'UCS-2', units: 3, segments: 1 }],
  ['accented letters of the alphabet', 'café à Müller, Ñoño', { encoding: 'GSM-7', units: 19, segments: 1 }],
  ['an accented letter outside it: UCS-2', 'Olá, você', { encoding: 'UCS-2', units: 9, segments: 1 }],
  ['ç (only Ç is in the alphabet)', 'garçon', { encoding: 'UCS-2', units: 6, segments: 1 }],
  ['a backtick is not in it', 'run `ls`', { encoding: 'UCS-2', units: 8, segments: 1 }],
  ['70 UCS-2 characters: one part', 'á'.repeat(70), { encoding: 'UCS-2', units: 70, segments: 1 }],
  ['71 UCS-2 characters: two parts of up to 67', 'á'.repeat(71), { encoding: 'UCS-2', units: 71, segments: 2 }],
  ['135 UCS-2 characters: three parts', 'á'.repeat(135), { encoding: 'UCS-2', units: 135, segments: 3 }],
  ['an emoji is a surrogate pair: two code units', 'Hi 😀', { encoding: 'UCS-2', units: 5, segments: 1 }],
  ['35 emoji are 70 code units: one part', '😀'.repeat(35), { encoding: 'UCS-2', units: 70, segments: 1 }],
  ['36 emoji are 72 code units: two parts', '😀'.repeat(36), { encoding: 'UCS-2', units: 72, segments: 2 }],
  ['a surrogate pair is not split between parts', a(66) + '😀' + a(66), { encoding: 'UCS-2', units: 134, segments: 3 }],
  ['one emoji turns a GSM text into UCS-2', a(100) + '👍', { encoding: 'UCS-2', units: 102, segments: 2 }],
])('%s', (_name, text, shape) => {
  expect(smsShape(text)).toEqual(shape);
});
