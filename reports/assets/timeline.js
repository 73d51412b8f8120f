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
    svg.setAttribute('width', String(Math.ceil(seconds * scale) + 1));
    for (const el of svg.querySelectorAll('[data-t]')) {
      const x = Number(el.dataset.t) * scale;
      if (el.tagName === 'line') {
        el.setAttribute('x1', x);
        el.setAttribute('x2', x);
      } else {
        el.setAttribute('x', x + 2);
      }
    }
  }
  function zoom(f) {
    scale = Math.min(Math.max(scale * f, 1), 100000);
    apply();
  }
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
