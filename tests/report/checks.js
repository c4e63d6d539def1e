(() => {
  const problems = [];
  const figures = [...document.querySelectorAll("figure.chart")];
  figures.forEach((figure, index) => {
    const svg = figure.querySelector("svg");
    const name = `chart ${index} (${figure.querySelector("figcaption")?.textContent})`;
    if (!svg) { problems.push(`${name}: no svg`); return; }
    if (svg.getAttribute("role") !== "img") problems.push(`${name}: no role=img`);
    if (!svg.querySelector(":scope > title")?.textContent) problems.push(`${name}: no title`);
    if (!svg.querySelector(":scope > desc")?.textContent) problems.push(`${name}: no desc`);
    if (!figure.querySelector("details table tbody tr")) problems.push(`${name}: no data table`);
    for (const axis of ["x", "y"]) {
      const group = svg.querySelector(`g.axis.${axis}`);
      if (!group) problems.push(`${name}: no ${axis} axis`);
      else if (!group.querySelector("text")) problems.push(`${name}: no ${axis} axis labels`);
    }
    if (svg.querySelectorAll("text.title").length < 2) problems.push(`${name}: no axis titles`);
    const first = svg.querySelector(".series.color-0");
    if (first && getComputedStyle(first).stroke === "none") problems.push(`${name}: chart style not applied`);
    const points = svg.querySelectorAll(".series .dot, .series rect.rect, .series path.line");
    if (!points.length) problems.push(`${name}: no data points`);
    const box = svg.viewBox.baseVal;
    for (const text of svg.querySelectorAll("text")) {
      if (!text.textContent.trim()) continue;
      const b = text.getBBox();
      const m = text.getCTM(), r = svg.getCTM();
      const p = new DOMPoint(b.x, b.y).matrixTransform(r.inverse().multiply(m));
      const q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(r.inverse().multiply(m));
      const [x0, x1] = [Math.min(p.x, q.x), Math.max(p.x, q.x)];
      const [y0, y1] = [Math.min(p.y, q.y), Math.max(p.y, q.y)];
      if (x0 < box.x - 2 || y0 < box.y - 2 || x1 > box.x + box.width + 2 || y1 > box.y + box.height + 2)
        problems.push(`${name}: text "${text.textContent}" leaves the chart`);
    }
  });
  if (getComputedStyle(document.body).marginTop !== "0px") problems.push("page style not applied");
  for (const el of document.querySelectorAll("body *")) {
    const style = getComputedStyle(el);
    if (style.display === "none" || el.closest("svg") || el.closest("details:not([open])")) continue;
    if (style.overflowX === "visible" && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      problems.push(`overflow: <${el.tagName.toLowerCase()} class="${el.className}"> ${el.scrollWidth} > ${el.clientWidth}`);
  }
  for (const wrap of document.querySelectorAll(".table-wrap")) {
    if (wrap.closest("details:not([open])")) continue;
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      const head = [...wrap.querySelectorAll("th")].map((th) => th.textContent).join("|");
      problems.push(`clipped table: ${wrap.scrollWidth} > ${wrap.clientWidth}: ${head.slice(0, 60)}`);
    }
  }
  const oneLine = (el) => {
    const style = getComputedStyle(el);
    const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
    const inner = el.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    return inner <= line * 1.5;
  };
  for (const value of document.querySelectorAll(".card b"))
    if (!oneLine(value)) problems.push(`card value wraps: ${value.textContent}`);
  for (const td of document.querySelectorAll("td:not(.text)")) {
    if (td.closest("details:not([open])")) continue;
    if (!oneLine(td)) problems.push(`number cell wraps (a double-height row): ${td.textContent}`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth)
    problems.push(`page is wider than the window: ${document.documentElement.scrollWidth}`);
  const lum = (rgb) => {
    const [r, g, b] = rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg") || !el.childNodes.length) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const fg = lum(parse(getComputedStyle(el).color).slice(0, 3)), bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) problems.push(`contrast ${ratio.toFixed(2)} < 4.5: <${el.tagName.toLowerCase()}> ${el.textContent.slice(0, 30)}`);
  }
  return {charts: figures.length, scripts: document.scripts.length, problems};
})()
