import { extname } from 'node:path';

/* A file's content type by its extension, for `npm run sms -- --media <file>`: types Twilio carries on MMS or WhatsApp. */

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.heic': 'image/heic',
  '.bmp': 'image/bmp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.mp4': 'video/mp4',
  '.3gp': 'video/3gpp',
  '.mov': 'video/quicktime',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.aac': 'audio/aac',
  '.ogg': 'audio/ogg',
  '.amr': 'audio/amr',
  '.pdf': 'application/pdf',
  '.vcf': 'text/vcard',
  '.csv': 'text/csv',
};

export const MEDIA_EXTENSIONS = Object.keys(MEDIA_TYPES);

/** The content type of a file named `path`; undefined for an extension not listed. */
export function mediaTypeOf(path: string): string | undefined {
  const extension = extname(path).toLowerCase();
  return Object.hasOwn(MEDIA_TYPES, extension) ? MEDIA_TYPES[extension] : undefined;
}
