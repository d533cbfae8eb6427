/*
 * DOM helpers shared by the dashboard pages (dashboard.js, suite.js), loaded before them.
 *
 * Safety rule: every value reaches the DOM as text (text nodes, textContent, setAttribute) — never
 * as HTML.
 */
/* global document, window, Node */
(function () {
  'use strict';

  const SVG_NS = 'http://www.w3.org/2000/svg';

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'text') node.textContent = String(value);
      else node.setAttribute(key === 'className' ? 'class' : key, String(value));
    }
    return node;
  }

  window.RvsDom = Object.freeze({
    append,
    el: (tag, attrs, ...children) => append(setAttrs(document.createElement(tag), attrs), children),
    svg: (tag, attrs, ...children) => append(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children),
    byId: (id) => document.getElementById(id),
    isNum: (v) => typeof v === 'number' && Number.isFinite(v),
  });
})();
