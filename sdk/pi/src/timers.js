// When the extension's next timer is due. A component the extension draws waits for the user's
// next key between frames, but no longer than until its next timer (a game's `setInterval`), so
// the timer runs on time and the frame after it shows what it changed. Installed over the
// engine's own timers before the extension is loaded.

const due = new Map();
const { setTimeout: engineSetTimeout, setInterval: engineSetInterval } = globalThis;
const { clearTimeout: engineClearTimeout, clearInterval: engineClearInterval } = globalThis;

globalThis.setTimeout = (fn, ms = 0, ...args) => {
  const delay = Math.max(0, Number(ms) || 0);
  const id = engineSetTimeout(
    (...rest) => {
      due.delete(id);
      if (typeof fn === "function") fn(...rest);
    },
    delay,
    ...args,
  );
  due.set(id, Date.now() + delay);
  return id;
};

globalThis.setInterval = (fn, ms = 0, ...args) => {
  const delay = Math.max(0, Number(ms) || 0);
  const id = engineSetInterval(
    (...rest) => {
      due.set(id, Date.now() + delay);
      if (typeof fn === "function") fn(...rest);
    },
    delay,
    ...args,
  );
  due.set(id, Date.now() + delay);
  return id;
};

globalThis.clearTimeout = (id) => {
  due.delete(id);
  engineClearTimeout(id);
};

globalThis.clearInterval = (id) => {
  due.delete(id);
  engineClearInterval(id);
};

/** Milliseconds until the next timer is due (0 when one is late), or `undefined` for none. */
export function nextTimerDelay() {
  let next;
  for (const at of due.values()) {
    if (next === undefined || at < next) next = at;
  }
  return next === undefined ? undefined : Math.max(0, next - Date.now());
}

/** Lets every timer that is due run. */
export function runDueTimers() {
  return new Promise((resolve) => engineSetTimeout(resolve, 0));
}
