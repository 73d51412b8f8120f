// Zooms the run's timeline: the shapes are drawn in seconds inside one
// scaled group, so a zoom changes that group's scale and moves the labels.
(function () {
  'use strict';
  const svg = document.getElementById('tl');
  if (!svg) {
    return;
  }
  const shapes = svg.querySelector('.shapes');
  const seconds = Number(svg.dataset.seconds);
  let scale = Number(svg.dataset.scale);
  function apply() {
    shapes.setAttribute('transform', 'scale(' + scale + ',1)');
    for (const el of svg.querySelectorAll('[data-t]')) {
      const x = Number(el.dataset.t) * scale;
      if (el.tagName === 'line') {
        el.setAttribute('x1', x);
        el.setAttribute('x2', x);
      } else {
        el.setAttribute('x', x + 2);
      }
    }
    declutter();
  }
  // Labels that share a line (a lane of fault labels, the members row)
  // must not overlap: the Go side lays the lanes out for the first
  // scale; at any other, a label that would overlap the one before it on
  // its line is hidden (its band's or span's tooltip still says it), and
  // shows again when there is room.
  const gap = 4;
  function declutter() {
    let width = Math.ceil(seconds * scale) + 1;
    const lines = new Map();
    for (const t of svg.querySelectorAll('.band-labels text, .lead-labels text')) {
      t.classList.remove('crowded');
      const key = t.parentNode.getAttribute('class') + ' ' + t.getAttribute('y');
      if (!lines.has(key)) {
        lines.set(key, []);
      }
      lines.get(key).push(t);
    }
    for (const labels of lines.values()) {
      const at = labels.map(function (t) { return {t: t, x: Number(t.getAttribute('x')), w: t.getComputedTextLength()}; });
      at.sort(function (a, b) { return a.x - b.x; });
      let end = -Infinity;
      for (const l of at) {
        if (l.x < end + gap) {
          l.t.classList.add('crowded');
          continue;
        }
        end = l.x + l.w;
        width = Math.max(width, Math.ceil(end) + 2);
      }
    }
    // A label that starts near the end runs past it: the drawing widens
    // to hold it.
    svg.setAttribute('width', String(width));
  }
  function zoom(f) {
    scale = Math.min(Math.max(scale * f, 1), 100000);
    apply();
  }
  declutter();
  for (const b of document.querySelectorAll('[data-zoom]')) {
    b.addEventListener('click', function () {
      const z = b.dataset.zoom;
      if (z === 'fit') {
        const box = svg.parentElement.clientWidth - 4;
        scale = box / seconds;
        apply();
      } else {
        zoom(Number(z));
      }
    });
  }
  // A link to an operation scrolls it into view and makes it flash.
  function show(id) {
    const el = document.getElementById(id);
    if (!el || !svg.contains(el)) {
      return;
    }
    el.scrollIntoView({block: 'center', inline: 'center'});
    el.classList.add('flash');
    setTimeout(function () { el.classList.remove('flash'); }, 1500);
  }
  for (const a of document.querySelectorAll('a[href^="#op-"]')) {
    a.addEventListener('click', function () { show(a.getAttribute('href').slice(1)); });
  }
  if (location.hash.startsWith('#op-')) {
    show(location.hash.slice(1));
  }
})();
