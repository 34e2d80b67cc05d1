// The teacher's screen of a class (templates/plate/class.html): asks for the counts every two
// seconds (polling: each request is short, so any worker of any server answers it, whatever its
// thread model) and draws a bar per option; the answer stays hidden until "Reveal the answer".
// The teacher's key is in the URL's fragment, never sent in a Referer, sent here as a header.
const POLL_MS = 2000;

export function mount(el, ctx) {
  const code = el.dataset.code;
  const key = new URLSearchParams(location.hash.slice(1)).get("key") || "";
  const status = el.querySelector(".classboard-status");
  const headers = { Accept: "application/json", "Accept-Language": ctx.lang, "X-Class-Key": key };
  let timer = null;
  let stopped = false;

  function draw(counts) {
    for (const q of el.querySelectorAll("[data-q]")) {
      const got = counts[q.dataset.q] || {};
      const total = Object.values(got).reduce((s, n) => s + n, 0);
      for (const li of q.querySelectorAll("[data-option]")) {
        const n = got[li.dataset.option] || 0;
        li.querySelector("[data-n]").textContent = String(n);
        li.querySelector(".classboard-fill").style.width = `${total ? (100 * n) / total : 0}%`;
      }
      q.querySelector("[data-total]").textContent = ctx.t("answers", { n: total });
      q.dataset.total = String(total);
    }
  }

  async function poll() {
    if (stopped) return;
    try {
      const resp = await fetch(`/api/class/${encodeURIComponent(code)}/counts`, { headers, cache: "no-store" });
      const body = await resp.json().catch(() => null);
      if (resp.ok) {
        draw(body.counts || {});
        status.textContent = "";
        el.dataset.polled = String(Number(el.dataset.polled || 0) + 1);
      } else {
        status.textContent = body?.error?.message || "";
        if (resp.status === 410 || resp.status === 403) { stopped = true; return; }
      }
    } catch { /* the next poll tries again */ }
    timer = setTimeout(poll, document.hidden ? POLL_MS * 3 : POLL_MS);
  }

  for (const btn of el.querySelectorAll("[data-act=reveal]")) {
    btn.addEventListener("click", () => {
      const q = btn.closest("[data-q]");
      const on = btn.getAttribute("aria-expanded") !== "true";
      btn.setAttribute("aria-expanded", on ? "true" : "false");
      btn.textContent = on ? ctx.t("hide") : ctx.t("reveal");
      q.classList.toggle("is-revealed", on);
      for (const m of q.querySelectorAll("[data-right] .classboard-mark")) m.hidden = !on;
    });
  }
  el.querySelector("[data-act=close-class]")?.addEventListener("click", async () => {
    const resp = await fetch(`/api/class/${encodeURIComponent(code)}/close`, { method: "POST", headers });
    if (resp.ok) {
      stopped = true;
      clearTimeout(timer);
      status.textContent = ctx.t("closed_done");
      el.dataset.closed = "1";
    }
  });
  poll();
}
