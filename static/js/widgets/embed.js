// "Embed" links: without scripts they open the embed itself; with scripts they open a small
// dialog with a ready <iframe> snippet (carrying the settings the embedded part reads) and a
// copy button.

let dialog = null;

function buildDialog(ctx) {
  const d = document.createElement("dialog");
  d.className = "embed-dialog";
  d.setAttribute("aria-labelledby", "embed-dialog-title");
  d.innerHTML = `
    <form method="dialog" class="embed-dialog__form">
      <h2 id="embed-dialog-title"></h2>
      <p class="embed-dialog__help"></p>
      <label class="embed-dialog__label" for="embed-dialog-code"></label>
      <textarea id="embed-dialog-code" rows="6" readonly spellcheck="false"></textarea>
      <p class="embed-dialog__status" role="status" aria-live="polite"></p>
      <div class="embed-dialog__buttons">
        <button type="button" class="btn btn--primary" data-act="copy"></button>
        <button type="submit" class="btn" value="close"></button>
      </div>
    </form>`;
  d.querySelector("h2").textContent = ctx.t("embed_title");
  d.querySelector(".embed-dialog__help").textContent = ctx.t("embed_help");
  d.querySelector("label").textContent = ctx.t("embed_code");
  d.querySelector("[data-act=copy]").textContent = ctx.t("copy");
  d.querySelector("button[type=submit]").textContent = ctx.t("close");
  const code = d.querySelector("textarea");
  const status = d.querySelector(".embed-dialog__status");
  d.querySelector("[data-act=copy]").addEventListener("click", async () => {
    code.select();
    try {
      await navigator.clipboard.writeText(code.value);
      status.textContent = ctx.t("copied");
    } catch {
      status.textContent = ctx.t("copy_failed");
    }
  });
  // Click on the backdrop closes, as people expect of a small dialog.
  d.addEventListener("click", (e) => { if (e.target === d) d.close(); });
  document.body.appendChild(d);
  return d;
}

export function snippet(src, title, height) {
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const host = new URL("/static/js/embed-host.js", location.origin).href;
  return `<iframe src="${esc(src)}" title="${esc(title)}" width="100%" height="${height}" ` +
    `style="border:0;max-width:100%" loading="lazy"></iframe>\n` +
    `<script src="${esc(host)}" async></script>`;
}

export function mount(el, ctx) {
  el.setAttribute("role", "button");
  el.setAttribute("aria-haspopup", "dialog");
  el.addEventListener("click", (e) => {
    if (typeof HTMLDialogElement === "undefined") return; // old browser: follow the link
    e.preventDefault();
    dialog = dialog || buildDialog(ctx);
    const url = new URL(el.getAttribute("href"), location.href);
    // The settings as they are now: for one section only those it reads, where not the defaults.
    const names = el.dataset.section ? ctx.state.reads(el.dataset.section) : undefined;
    url.search = new URLSearchParams(ctx.state.query(names)).toString();
    const whole = !/\/specdec\/[^/]+\/$/.test(url.pathname);
    const code = dialog.querySelector("textarea");
    code.value = snippet(url.href, el.dataset.title || document.title, whole ? 900 : 600);
    dialog.querySelector(".embed-dialog__status").textContent = "";
    dialog.showModal();
    code.focus();
    code.select();
  });
  // Space activates it like a button (it is styled and announced as one).
  el.addEventListener("keydown", (e) => { if (e.key === " ") { e.preventDefault(); el.click(); } });
}
