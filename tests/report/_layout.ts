/**
 * What the HTML report's layout tests ask the browser: which elements do not fit the page at the
 * current width, and how long the page took to load.
 *
 * @module
 */

import type { Chromium } from "./_chromium.ts";

/**
 * Every element that does not fit, in words: a section, header or notice wider than its box; a
 * scroll container that scrolls (matrices excepted: a matrix with many trees scrolls on purpose);
 * an element outside any scroll container reaching past its section's right edge; an agent's name
 * broken over two lines; and the page itself wider than the window. Opens every folded matrix
 * first, so that they are laid out too.
 */
export async function overflows(browser: Chromium): Promise<string[]> {
  return await browser.evaluate<string[]>(`(() => {
    for (const d of document.querySelectorAll("details")) d.open = true;
    const out = [];
    const where = (el) => {
      const section = el.closest("section, header, nav, .warning, .notice");
      const id = el.id ? "#" + el.id : "";
      const cls = typeof el.className === "string" && el.className ? "." + el.className.split(" ").join(".") : "";
      return (section?.id || section?.tagName.toLowerCase() || "page") + " > " + el.tagName.toLowerCase() + id + cls;
    };
    if (document.documentElement.scrollWidth > window.innerWidth) {
      out.push("page: " + document.documentElement.scrollWidth + " px wide in a " + window.innerWidth + " px window");
    }
    for (const box of document.querySelectorAll("main > *")) {
      if (box.scrollWidth > box.clientWidth + 1) {
        out.push(where(box) + ": content " + box.scrollWidth + " px in a box of " + box.clientWidth + " px");
      }
    }
    for (const box of document.querySelectorAll(".scroll")) {
      if (box.querySelector(".heatmap")) continue;
      if (box.scrollWidth > box.clientWidth + 1) {
        out.push(where(box.firstElementChild) + ": scrolls, " + box.scrollWidth + " px in " + box.clientWidth + " px");
      }
    }
    for (const section of document.querySelectorAll("main > section")) {
      const edge = section.getBoundingClientRect().right;
      for (const el of section.querySelectorAll("*")) {
        if (el.closest(".scroll")) continue;
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.right > edge + 1) {
          out.push(where(el) + ": reaches " + Math.round(r.right - edge) + " px past its section");
        }
      }
    }
    for (const name of document.querySelectorAll(".name")) {
      if (name.getClientRects().length > 1) out.push(where(name) + ": the name " + JSON.stringify(name.textContent) + " wraps");
    }
    return out;
  })()`);
}

/** How long one load of the page took, in milliseconds, as the page's own clock measured it. */
export interface LoadTiming {
  /** From the start of navigation to the end of the load event. */
  load: number;
  /** From the start of navigation until a forced layout of the whole page returned. */
  laidOut: number;
}

/** Open the URL and time it: the load event, and the first full layout after it. */
export async function timedLoad(browser: Chromium, url: string): Promise<LoadTiming> {
  await browser.open(url);
  return await browser.evaluate<LoadTiming>(`(() => {
    void document.documentElement.getBoundingClientRect().height;
    const laidOut = performance.now();
    const nav = performance.getEntriesByType("navigation")[0];
    return { load: Math.round(nav.loadEventEnd), laidOut: Math.round(laidOut) };
  })()`);
}
