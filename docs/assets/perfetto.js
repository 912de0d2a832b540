// "Open in Perfetto": fetch the figure's trace and post it to a new ui.perfetto.dev tab,
// the hand-off Perfetto documents (https://perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui):
// ping the tab until it answers PONG, then send {perfetto: {buffer, title, fileName}}.
const PERFETTO = "https://ui.perfetto.dev";

function siteBase() {
  const config = document.getElementById("__config");
  const base = config ? JSON.parse(config.textContent).base : ".";
  return new URL(base.endsWith("/") ? base : base + "/", window.location.href);
}

function openInPerfetto(button) {
  const url = new URL(button.dataset.trace, siteBase());
  const tab = window.open(PERFETTO + "/#!/viewer");
  if (!tab) {
    button.textContent = "Allow pop-ups to open Perfetto";
    return;
  }
  fetch(url)
    .then((response) => response.arrayBuffer())
    .then((buffer) => {
      const ping = setInterval(() => tab.postMessage("PING", PERFETTO), 50);
      const onMessage = (event) => {
        if (event.origin !== PERFETTO || event.data !== "PONG") return;
        clearInterval(ping);
        window.removeEventListener("message", onMessage);
        const fileName = url.pathname.split("/").pop();
        tab.postMessage({ perfetto: { buffer, title: button.dataset.title, fileName } }, PERFETTO);
      };
      window.addEventListener("message", onMessage);
    });
}

document.addEventListener("click", (event) => {
  const button = event.target.closest("button.pg-perfetto");
  if (button) openInPerfetto(button);
});
