/*
 * Which settings each carrier needs, checked once at boot: a deployment that names a carrier but lacks
 * its credentials, its sender or the public URL its receipts come back to does not start. The values
 * themselves are never part of a message.
 */

type Settings = Readonly<Record<string, unknown>> & { MESSAGE_PROVIDER: string; PUBLIC_BASE_URL?: string };

const has = (settings: Settings, name: string) => typeof settings[name] === 'string' && (settings[name] as string).length > 0;

function missing(settings: Settings, groups: readonly (readonly string[])[]): string[] {
  return groups.filter((alternatives) => !alternatives.some((set) => set.split('+').every((name) => has(settings, name)))).map((alternatives) => alternatives.map((set) => set.replace(/\+/g, ' and ')).join(' or '));
}

const REQUIRED: Record<string, readonly (readonly string[])[]> = {
  twilio: [['TWILIO_ACCOUNT_SID'], ['TWILIO_AUTH_TOKEN'], ['TWILIO_MESSAGING_SERVICE_SID', 'TWILIO_FROM'], ['PUBLIC_BASE_URL']],
  telnyx: [['TELNYX_API_KEY'], ['TELNYX_MESSAGING_PROFILE_ID', 'TELNYX_FROM'], ['TELNYX_PUBLIC_KEY'], ['PUBLIC_BASE_URL']],
  vonage: [['VONAGE_APPLICATION_ID+VONAGE_PRIVATE_KEY', 'VONAGE_API_KEY+VONAGE_API_SECRET'], ['VONAGE_FROM'], ['VONAGE_SIGNATURE_SECRET'], ['PUBLIC_BASE_URL']],
};

/**
 * What the configured carrier lacks, in words, or undefined. Twilio's callbacks are signed with the
 * account's auth token, so it is needed even when sends use an API key.
 */
export function carrierSettingsProblem(settings: Settings): string | undefined {
  const groups = REQUIRED[settings.MESSAGE_PROVIDER];
  if (!groups) return undefined;
  const absent = missing(settings, groups);
  return absent.length ? `MESSAGE_PROVIDER=${settings.MESSAGE_PROVIDER} needs ${absent.join('; ')}` : undefined;
}
