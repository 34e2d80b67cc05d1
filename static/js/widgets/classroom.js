// A student's page opened with a class's code (?class=CODE): each predict-first choice is sent to
// the class (views/classroom.py), once per question per tab. The tab's id is random and lives in
// sessionStorage, so a closed tab leaves nothing; no cookies. A code that is not open is said at
// once, in the reader's language (the server's message).
//
// It listens for the choice, not for the component: a radio of a predict-first question changing
// (input[name="predict-KEY"]), or a "specdec:predict" event ({detail: {key, option}}) from a
// component that commits a choice its own way. Whichever comes first counts.

function tabId() {
  try {
    let id = sessionStorage.getItem("specdec-tab");
    if (!id) {
      const a = new Uint8Array(12);
      crypto.getRandomValues(a);
      id = [...a].map((b) => b.toString(16).padStart(2, "0")).join("");
      sessionStorage.setItem("specdec-tab", id);
    }
    return id;
  } catch {
    return null;   // no storage: nothing is sent (one answer per tab could not be kept)
  }
}

export async function mount(el, ctx) {
  const code = el.dataset.code;
  const tab = tabId();
  const sent = new Set();
  const headers = { "Content-Type": "application/json", Accept: "application/json", "Accept-Language": ctx.lang };

  const status = await fetch(`/api/class/${encodeURIComponent(code)}`, { headers }).catch(() => null);
  if (!status || !status.ok) {
    const body = status ? await status.json().catch(() => null) : null;
    el.classList.add("class-banner--closed");
    el.setAttribute("role", "alert");
    el.textContent = body?.error?.message || ctx.t("failed");
    return;
  }
  if (!tab) return;

  function note(key, text) {
    const group = document.getElementById(`predict-q-${key}`)?.closest(".predict");
    if (!group) return;
    let p = group.querySelector(".predict__class");
    if (!p) {
      p = document.createElement("p");
      p.className = "predict__class";
      p.setAttribute("role", "status");
      group.append(p);
    }
    p.textContent = text;
  }

  async function send(key, option, attempt = 0) {
    if (sent.has(key) && attempt === 0) return;
    sent.add(key);
    note(key, ctx.t("again"));
    let resp = null;
    try {
      resp = await fetch(`/api/class/${encodeURIComponent(code)}/answer`, {
        method: "POST", headers, body: JSON.stringify({ q: key, option: Number(option), tab }),
      });
    } catch { resp = null; }
    if (resp?.ok || resp?.status === 409) { note(key, ctx.t("sent")); return; }
    if (resp?.status === 429 && attempt < 20) {
      const wait = Math.min(5, Number(resp.headers.get("Retry-After")) || 1) * 1000 * (1 + Math.random());
      setTimeout(() => send(key, option, attempt + 1), wait);
      return;
    }
    const body = resp ? await resp.json().catch(() => null) : null;
    if (resp?.status !== 410) sent.delete(key);   // a closed class: no retry
    note(key, body?.error?.message || ctx.t("failed"));
  }

  document.addEventListener("change", (e) => {
    const input = e.target;
    if (!(input instanceof HTMLInputElement) || input.type !== "radio" || !input.name.startsWith("predict-")) return;
    if (input.checked) send(input.name.slice("predict-".length), input.value);
  });
  document.addEventListener("specdec:predict", (e) => {
    const { key, option } = e.detail || {};
    if (key && option) send(String(key), option);
  });
}
