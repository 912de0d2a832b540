// "Open in Perfetto": fetch the figure's trace and post it to a new ui.perfetto.dev tab,
// the hand-off Perfetto documents (https://perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui):
// ping the tab until it answers PONG, then send {perfetto: {buffer, title, fileName}}.
// The ping stops when the tab answers, when it is closed, and when it has not answered in GIVE_UP_MS (Perfetto
// cannot be reached, or the tab never loaded it); the reader is told why in a live region beside the button.
const PERFETTO = "https://ui.perfetto.dev";
const PING_MS = 50;
const GIVE_UP_MS = 20000; // the UI is a large download: give a slow connection time to load it

function siteBase() {
  const config = document.getElementById("__config");
  const base = config ? JSON.parse(config.textContent).base : ".";
  return new URL(base.endsWith("/") ? base : base + "/", window.location.href);
}

// The region that tells the reader what became of the hand-off; in the page before any message, so that a
// screen reader announces what is written into it.
function statusOf(button) {
  const next = button.nextElementSibling;
  if (next && next.classList.contains("pg-perfetto-status")) return next;
  button.insertAdjacentHTML("afterend", '<span class="pg-perfetto-status" role="status" aria-live="polite"></span>');
  return button.nextElementSibling;
}

function handOver(tab, buffer, button, fileName, say) {
  const started = Date.now();
  const stop = (message) => {
    clearInterval(ping);
    window.removeEventListener("message", onMessage);
    say(message);
  };
  const onMessage = (event) => {
    if (event.source !== tab || event.origin !== PERFETTO || event.data !== "PONG") return;
    stop("Sent to the Perfetto tab.");
    tab.postMessage({ perfetto: { buffer, title: button.dataset.title, fileName } }, PERFETTO);
  };
  const ping = setInterval(() => {
    if (tab.closed) return stop("The Perfetto tab was closed before the trace reached it.");
    if (Date.now() - started > GIVE_UP_MS) {
      return stop(`Perfetto (${PERFETTO}) did not answer in ${GIVE_UP_MS / 1000} s: it cannot be reached from ` +
        "here. Download the trace and open it there yourself.");
    }
    tab.postMessage("PING", PERFETTO);
  }, PING_MS);
  window.addEventListener("message", onMessage);
}

function openInPerfetto(button) {
  const say = (message) => { statusOf(button).textContent = message; };
  const url = new URL(button.dataset.trace, siteBase());
  const tab = window.open(PERFETTO + "/#!/viewer");
  if (!tab) {
    say("Allow pop-ups to open Perfetto.");
    return;
  }
  say("Opening Perfetto…");
  fetch(url)
    .then((response) => {
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      return response.arrayBuffer();
    })
    .then((buffer) => handOver(tab, buffer, button, url.pathname.split("/").pop(), say))
    .catch((error) => say(`The trace could not be fetched (${error.message}).`));
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button.pg-perfetto");
  if (button) openInPerfetto(button);
});
document$.subscribe(() => document.querySelectorAll("button.pg-perfetto").forEach(statusOf));
