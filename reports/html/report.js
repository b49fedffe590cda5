"use strict";
// report.html's filters: by outcome, by level, and a search over each card's
// id, title, clause, spec names and failure messages. Without this script
// the form stays hidden and every card shows.
(() => {
  const form = document.getElementById("filters");
  if (!form) return;
  const cards = Array.from(document.querySelectorAll("article.req"), (card) => ({
    card,
    outcome: card.dataset.outcome,
    levels: (card.dataset.levels || "").split(" "),
    text: Array.from(card.querySelectorAll(".req-id, .title, .clause, .spec-name, .message, .reason"), (e) => e.textContent)
      .join("\n").toLowerCase(),
  }));
  const groups = Array.from(document.querySelectorAll("section.group"));
  const shown = document.getElementById("filter-shown");
  const apply = () => {
    const outcomes = new Set(Array.from(form.querySelectorAll("input[name=outcome]:checked"), (i) => i.value));
    const level = form.elements.level.value;
    const terms = form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean);
    let n = 0;
    for (const c of cards) {
      const show = outcomes.has(c.outcome) && (level === "" || c.levels.includes(level)) &&
        terms.every((t) => c.text.includes(t));
      c.card.hidden = !show;
      if (show) n++;
    }
    for (const g of groups) g.hidden = !g.querySelector("article.req:not([hidden])");
    shown.textContent = `${n} of ${cards.length} requirements shown`;
  };
  // A link to a card the filters hide (#summary) clears the filters first.
  const reveal = (id) => {
    const target = document.getElementById(id);
    if (target && target.matches("article.req") && target.hidden) {
      form.reset();
      apply();
    }
  };
  document.addEventListener("click", (e) => {
    const a = e.target.closest('a[href^="#"]');
    if (a) reveal(decodeURIComponent(a.getAttribute("href").slice(1)));
  });
  window.addEventListener("hashchange", () => reveal(decodeURIComponent(location.hash.slice(1))));
  // Each excerpt scrolls to the exchange that failed (its first mark) when
  // its card is open; a card opened later scrolls then.
  const toMark = (root) => {
    for (const pre of root.querySelectorAll("pre.excerpt")) {
      const m = pre.querySelector("mark.failed-exchange");
      if (m && pre.clientHeight > 0) {
        pre.scrollTop += m.getBoundingClientRect().top - pre.getBoundingClientRect().top - pre.clientHeight / 3;
      }
    }
  };
  for (const d of document.querySelectorAll("article.req > details")) {
    d.addEventListener("toggle", () => d.open && toMark(d));
  }
  toMark(document);
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", (e) => e.preventDefault());
  form.hidden = false;
  apply();
})();
