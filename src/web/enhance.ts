/**
 * The page's only script, inlined, for what plain HTML cannot do: copy
 * buttons, and panels that update in place. Every panel is a real form or
 * link whose server answer is a whole page; here the same request is sent
 * with fetch and only the elements named in `data-swap` are taken from the
 * answer, so other panels keep their state and the page does not jump.
 * The key field is sent as `Authorization: Bearer` with GET panels (a form
 * cannot set headers) and stays in the field: never in storage or the address.
 */
export const ENHANCE_SCRIPT = `(() => {
"use strict";
const $ = (id) => document.getElementById(id);
const live = $("live");
const say = (text) => { live.textContent = ""; setTimeout(() => { live.textContent = text; }, 30); };
const reveal = (root) => { for (const button of root.querySelectorAll("button[data-copy]")) button.hidden = false; };
let shown = location.pathname + location.search;
const keyHeaders = () => {
  const key = $("api-key") ? $("api-key").value.trim() : "";
  return key ? { Authorization: "Bearer " + key } : {};
};
async function load(url, init, ids, push) {
  const parts = ids.map($).filter(Boolean);
  parts.forEach((part) => part.setAttribute("aria-busy", "true"));
  try {
    const response = await fetch(url, Object.assign({ credentials: "same-origin" }, init));
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const id of ids) {
      const fresh = page.getElementById(id);
      if (!fresh || !$(id)) continue;
      const part = document.importNode(fresh, true);
      $(id).replaceWith(part);
      reveal(part);
    }
    if (push) history.pushState(null, "", url + "#" + ids[0]);
    if (push) shown = url;
    const focus = $(ids[0]) && $(ids[0]).querySelector("[data-focus]");
    if (focus) { focus.focus(); say(focus.textContent); } else say("Updated");
  } catch (error) {
    say("The server could not be reached; check the connection and try again.");
  } finally {
    ids.map($).forEach((part) => part && part.removeAttribute("aria-busy"));
  }
}
document.addEventListener("submit", (event) => {
  const form = event.target, submitter = event.submitter;
  const swap = (submitter && submitter.dataset.swap) || form.dataset.swap;
  if (!swap) return;
  event.preventDefault();
  const action = new URL((submitter && submitter.getAttribute("formaction")) || form.getAttribute("action"), location.href);
  const method = ((submitter && submitter.getAttribute("formmethod")) || form.getAttribute("method") || "get").toUpperCase();
  const fields = new URLSearchParams(new FormData(form, submitter));
  if (method === "GET") load(action.pathname + "?" + fields, { headers: keyHeaders() }, swap.split(" "), true);
  else load(action.pathname, { method: "POST", body: fields }, swap.split(" "), false);
});
document.addEventListener("click", async (event) => {
  const link = event.target.closest("a[data-swap]");
  if (link && event.button === 0 && !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)) {
    event.preventDefault();
    const url = new URL(link.href);
    load(url.pathname + url.search, { headers: keyHeaders() }, link.dataset.swap.split(" "), true);
    return;
  }
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const text = $(button.dataset.copy).textContent;
  let copied = false;
  try { await navigator.clipboard.writeText(text); copied = true; } catch (error) {
    const area = document.createElement("textarea");
    area.value = text; area.setAttribute("readonly", ""); area.style.position = "fixed"; area.style.opacity = "0";
    document.body.append(area); area.select();
    try { copied = document.execCommand("copy"); } catch (ignored) { copied = false; }
    area.remove();
  }
  if (!copied) { getSelection().selectAllChildren($(button.dataset.copy)); say("Selected: press Ctrl+C (⌘C) to copy"); return; }
  button.dataset.label = button.dataset.label || button.textContent;
  button.textContent = "Copied";
  say("Copied to the clipboard");
  setTimeout(() => { button.textContent = button.dataset.label; }, 2000);
});
addEventListener("popstate", () => {
  // Back and forward between panel results; a jump to #connect on the same page loads nothing.
  if (location.pathname + location.search === shown) return;
  shown = location.pathname + location.search;
  load(shown, { headers: keyHeaders() }, ["search", "ask", "library", "allowance"], false);
});
reveal(document);
})();`;
