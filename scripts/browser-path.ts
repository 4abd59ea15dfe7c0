/** Debian's chromium, which `npm test` installs when it is missing (scripts/ensure-browser.ts). */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The browser the /docs test drives: CHROMIUM_PATH, or Debian's chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || DEBIAN_CHROMIUM;
