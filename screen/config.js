// Defaults for this screen; query parameters override them (?broker=ws://host:9001&venue=club&table=t1).
// `cueboard screen --broker-ws URL` serves its own version of this file.
window.CUEBOARD_SCREEN = window.CUEBOARD_SCREEN || {};
