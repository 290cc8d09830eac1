// @ts-check
// Defaults for this screen; query parameters override them (?broker=ws://host:9001&venue=club&table=t1).
// `cueboard screen --broker-ws URL` serves its own version of this file.
{
  const page = /** @type {Window & {CUEBOARD_SCREEN?: {[key: string]: unknown}}} */ (window);
  page.CUEBOARD_SCREEN = page.CUEBOARD_SCREEN || {};
}
