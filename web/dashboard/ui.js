// Small DOM helpers: elements are built with textContent, never from HTML strings of data.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style') el.style.cssText = v; // CSSOM: allowed by the page's CSP, unlike a style attribute
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== '') el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

let seq = 0;

/** A labelled input with its own error line (aria-describedby), for jsonForm. */
export function field(name, label, attrs = {}) {
  const id = `f-${name}-${++seq}`;
  const errorId = `${id}-error`;
  const input = h('input', { id, name, 'aria-describedby': errorId, ...attrs });
  const error = h('p', { id: errorId, class: 'field-error' });
  return { name, input, error, el: h('div', { class: 'field' }, h('label', { for: id }, label), input, error), value: () => input.value };
}

/**
 * Shows an API error next to the field it names (`password: must be ...`, the schema's
 * `invalid password: ...`, `email: ...`), or under
 * the first field when it names none; null clears every error.
 */
export function formErrors(fields, message) {
  for (const f of fields) {
    f.error.textContent = '';
    f.input.removeAttribute('aria-invalid');
  }
  if (!message) return;
  const named = fields.find((f) => message.startsWith(`${f.name}:`) || message.startsWith(`invalid ${f.name}:`) || message.includes(`/${f.name}`) || message.includes(`field: ${f.name}`) || message.includes(` ${f.name} `));
  const target = named || fields[0];
  target.error.textContent = message;
  target.input.setAttribute('aria-invalid', 'true');
  target.input.focus();
}

export function money(credits) {
  return Number(credits).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
}

export function tokens(n) {
  return Number(n).toLocaleString('en-US');
}

let toastTimer;
export function toast(text) {
  const t = document.getElementById('toast');
  t.textContent = text;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.textContent = ''; }, 5000);
}
