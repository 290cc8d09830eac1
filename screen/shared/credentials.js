// @ts-check
// A login kept for a device its owner trusts (the desk's "Trust this device", the scorer's
// "Remember on this device"): in the browser's own password store, through the Credential
// Management API's PasswordCredential where the browser has it (Chromium), never in
// localStorage or sessionStorage, where any script of the page's origin, or anyone holding an
// unlocked phone with the developer tools, reads it in plain text (issue 37, row 9). A browser
// without it (Safari, Firefox) asks again after a reload; its password manager still offers to
// fill the form (autocomplete="username" / "current-password").
//
// Beside it the page keeps a marker with no password in it: which login, for which broker and
// place. A kept login is offered back only when the marker names the broker the page connects to
// now, so a login is never carried to another broker.

/**
 * @typedef {{broker: string, place: string}} Binding the broker and the venue (and table) a login is for
 * @typedef {{user: string, password: string}} KeptLogin
 * @typedef {{new (data: {id: string, password: string, name?: string}): Credential}} PasswordCredentialType
 * @typedef {Credential & {password?: unknown}} MaybePassword
 */

/** The browser's PasswordCredential and credential store, or null where it has none. */
function passwordStore() {
  const type = /** @type {{PasswordCredential?: PasswordCredentialType}} */ (/** @type {unknown} */ (globalThis)).PasswordCredential;
  return type && navigator.credentials ? type : null;
}

/** @param {string} key @returns {{broker?: unknown, place?: unknown, user?: unknown} | null} */
function marker(key) {
  try {
    const kept = JSON.parse(localStorage.getItem(key) || "null");
    return kept && typeof kept === "object" ? kept : null;
  } catch { return null; }
}

/**
 * Hand a login that got in to the browser's password store, and mark it (no password) as this
 * broker's and place's. Whether the browser took it (false: it has no store, or refused).
 * @param {string} key the marker's key in localStorage @param {Binding} bind @param {KeptLogin} login
 */
export async function keepLogin(key, bind, login) {
  const type = passwordStore();
  if (!type) return false;
  localStorage.setItem(key, JSON.stringify({ broker: bind.broker, place: bind.place, user: login.user }));
  try {
    await navigator.credentials.store(new type({ id: login.user, password: login.password, name: login.user }));
    return true;
  } catch {
    return false;
  }
}

/**
 * The login the browser's store keeps for this broker and place, without asking the person
 * (mediation "silent"); null when there is none, it is another broker's or place's, or the
 * browser has no store.
 * @param {string} key @param {Binding} bind @returns {Promise<KeptLogin | null>}
 */
export async function keptLogin(key, bind) {
  const mark = marker(key);
  const type = passwordStore();
  if (!mark || !type || mark.broker !== bind.broker || mark.place !== bind.place || typeof mark.user !== "string") return null;
  try {
    const options = /** @type {CredentialRequestOptions} */ ({ password: true, mediation: "silent" });
    const found = /** @type {MaybePassword | null} */ (await navigator.credentials.get(options));
    if (found && found.id === mark.user && typeof found.password === "string" && found.password) {
      return { user: found.id, password: found.password };
    }
  } catch { /* none to give */ }
  return null;
}

/**
 * Forget the marker (signing out, a login the broker refused): the page signs in by itself no
 * more; the browser's store keeps what its owner saved until they remove it there.
 * @param {string} key
 */
export function forgetLogin(key) {
  localStorage.removeItem(key);
  if (navigator.credentials && navigator.credentials.preventSilentAccess) navigator.credentials.preventSilentAccess().catch(() => {});
}
