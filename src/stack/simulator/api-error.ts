/* A refusal the simulated Twilio answers with its JSON error shape: `code`, `message`, `more_info`, `status`. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  get body() {
    return { code: this.code, message: this.message, more_info: `https://www.twilio.com/docs/errors/${this.code}`, status: this.status };
  }
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Twilio's date format (RFC 2822, "+0000"). */
export const twilioDate = (date: Date) => date.toUTCString().replace('GMT', '+0000');
