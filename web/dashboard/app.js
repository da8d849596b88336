// The account dashboard: one page whose views follow the path. It talks only to the JSON API
// under /dashboard/api (and /admin for the console), sending the CSRF token on every write.
import { h, field, formErrors, money, toast, tokens } from './ui.js';
import { renderConsole } from './console.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
let state = { signed_in: false, operator: false, account: null, csrf_token: '', topup_enabled: false, sends_email: true, mail_outbox: null };
// The sign-up made the account but its verification email could not be sent (the mail server was
// down): the verification banner says so until a Resend goes through.
let verificationNotSent = false;

export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(method === 'GET' ? {} : { 'x-csrf-token': state.csrf_token }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) {
    const err = new Error((data && data.error) || `request failed (${res.status})`);
    err.status = res.status;
    if (method !== 'GET' && (res.status === 401 || res.status === 403) && state.account && ACCOUNT_PAGES.includes(location.pathname)) await sessionChanged(err);
    throw err;
  }
  return data;
}

/**
 * A write from an account page refused for its session: that session may have ended meanwhile
 * (signed out in another tab, expired, a password reset), or another tab signed in afresh. Signed
 * out: sign in again and come back here, rather than a page that still looks signed in. Another
 * account now: this page again, as that account, so no write lands on an account it does not show.
 */
async function sessionChanged(err) {
  const shownAccount = state.account.id;
  try {
    await refresh();
  } catch {
    return;
  }
  if (!state.account) {
    err.message = 'your session has ended - sign in again';
    redirect(`/?next=${encodeURIComponent(location.pathname + location.search)}`);
    toast(err.message);
  } else if (state.account.id !== shownAccount) {
    redirect(location.pathname + location.search);
  }
}

async function refresh() {
  state = await api('GET', '/dashboard/api/session');
}

export function go(path) {
  history.pushState(null, '', path);
  void route();
}

/**
 * Sends a visit on without a history entry of its own (signed out on an account page, signed in
 * on the sign-in page): with one, Back would land on the page that sends it on again, a loop.
 */
function redirect(path) {
  history.replaceState(null, '', path);
  void route();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[data-nav]');
  if (!a || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  go(a.getAttribute('href'));
});
window.addEventListener('popstate', () => void route());

function renderNav(path) {
  const links = state.signed_in && state.account
    ? [['/account', 'Overview'], ['/account/keys', 'Keys'], ['/account/usage', 'Usage'], ['/account/credits', 'Credits']]
    : [['/', 'Sign in']];
  if (state.operator) links.push(['/console', 'Console']);
  nav.replaceChildren(
    ...links.map(([href, text]) => h('a', { href, 'data-nav': '', 'aria-current': path === href ? 'page' : null }, text)),
    ...(state.signed_in ? [h('button', { class: 'link', type: 'button', onclick: signOut }, 'Sign out')] : []),
  );
}

async function signOut() {
  try {
    await api('POST', '/dashboard/api/sign-out');
  } catch (err) {
    toast(err.message);
    return;
  }
  await refresh();
  go('/');
}

function show(title, ...children) {
  document.title = `${title} — svc`;
  main.replaceChildren(h('h1', {}, title), ...children);
  main.focus();
}

async function route() {
  const path = location.pathname;
  try {
    await refresh();
  } catch (e) {
    // The service or the network failed before any view: say so and offer this page again.
    show('Unavailable', h('div', { class: 'card' }, h('p', { class: 'bad', role: 'alert' }, e.message), h('a', { href: location.pathname + location.search, 'data-nav': '' }, 'Try again')));
    return;
  }
  renderNav(path);
  const params = new URLSearchParams(location.search);
  const views = {
    '/': viewSignIn,
    '/account/verify': () => viewVerify(params.get('token')),
    '/account/reset': () => viewReset(params.get('token')),
    '/account/forgot': viewForgot,
    '/console': () => renderConsole({ main, show, api, state, refresh, go }),
  };
  const accountViews = { '/account': viewOverview, '/account/keys': viewKeys, '/account/usage': viewUsage, '/account/credits': viewCredits };
  if (accountViews[path]) {
    // Signed out (a bookmark, a session ended): sign in, then come back here.
    if (!state.account) return redirect(path === '/account' ? '/' : `/?next=${encodeURIComponent(path + location.search)}`);
    return shown(() => accountViews[path](params));
  }
  if (path === '/' && state.account) return redirect(afterSignIn());
  return (views[path] || viewNotFound)();
}

/** An address under the pages' folders that names no page (the service answers it 404). */
function viewNotFound() {
  const home = state.account ? h('a', { href: '/account', 'data-nav': '' }, 'Go to your account') : h('a', { href: '/', 'data-nav': '' }, 'Sign in');
  show('Page not found', h('div', { class: 'card' }, h('p', {}, 'There is no page at ', h('code', {}, location.pathname), '.'), home));
}

const ACCOUNT_PAGES = ['/account', '/account/keys', '/account/usage', '/account/credits'];

/**
 * Where sign-in leads: the account page the visitor was sent away from (`?next=`), only when it
 * is one of this site's account pages, so a crafted link cannot send a user elsewhere.
 */
function afterSignIn() {
  const next = new URLSearchParams(location.search).get('next');
  if (!next) return '/account';
  const url = new URL(next, location.origin);
  return url.origin === location.origin && ACCOUNT_PAGES.includes(url.pathname) ? url.pathname + url.search : '/account';
}

/**
 * Runs a view; an API refusal while it loads (a malformed `before` in the address, the session
 * ended in another tab) is shown on the page instead of leaving the last view or "Loading…".
 */
async function shown(view) {
  try {
    await view();
  } catch (err) {
    if (err.status === 401) return redirect(`/?next=${encodeURIComponent(location.pathname + location.search)}`);
    show('This page could not be shown', h('div', { class: 'card' }, h('p', { class: 'bad', role: 'alert' }, err.message), h('a', { href: location.pathname, 'data-nav': '' }, 'Open it afresh')));
  }
}

/** Sends a form's fields as JSON, showing each field's error next to it. */
function jsonForm({ fields, submit, onDone, label }) {
  const form = h('form', { class: 'stack', novalidate: '' }, ...fields.map((f) => f.el), h('button', { type: 'submit' }, label));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const button = form.querySelector('button[type=submit]');
    formErrors(fields, null);
    button.disabled = true;
    try {
      const body = Object.fromEntries(fields.map((f) => [f.name, f.value()]));
      const result = await submit(body);
      await onDone(result);
    } catch (err) {
      formErrors(fields, err.message);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

function viewSignIn() {
  const query = new URLSearchParams(location.search);
  const tab = query.get('tab') === 'sign-up' ? 'sign-up' : 'sign-in';
  // Switching forms keeps where sign-in leads.
  const next = query.get('next');
  const tabHref = (t) => {
    const q = new URLSearchParams();
    if (t === 'sign-up') q.set('tab', 'sign-up');
    if (next) q.set('next', next);
    const search = q.toString();
    return search ? `/?${search}` : '/';
  };
  const email = field('email', 'Email', { type: 'email', autocomplete: 'email', required: '' });
  const password = field('password', 'Password', { type: 'password', autocomplete: tab === 'sign-up' ? 'new-password' : 'current-password', required: '', minlength: tab === 'sign-up' ? '10' : null });
  const form = jsonForm({
    fields: [email, password],
    label: tab === 'sign-up' ? 'Create account' : 'Sign in',
    submit: (body) => api('POST', `/dashboard/api/${tab}`, body),
    onDone: async (result) => {
      verificationNotSent = tab === 'sign-up' && result.verification_email_sent === false;
      await refresh();
      go(afterSignIn());
    },
  });
  show(
    tab === 'sign-up' ? 'Create your account' : 'Sign in',
    h('div', { class: 'card' },
      // Two links to two forms: marked tabs, a screen reader would promise panels and arrow keys.
      h('div', { class: 'tabs' },
        h('a', { href: tabHref('sign-in'), 'data-nav': '', 'aria-current': tab === 'sign-in' ? 'page' : null }, 'Sign in'),
        h('span', { class: 'muted', 'aria-hidden': 'true' }, '·'),
        h('a', { href: tabHref('sign-up'), 'data-nav': '', 'aria-current': tab === 'sign-up' ? 'page' : null }, 'Create an account'),
      ),
      form,
      tab === 'sign-in' ? h('p', {}, h('a', { href: '/account/forgot', 'data-nav': '' }, 'Forgot your password?')) : h('p', { class: 'muted' }, !state.sends_email ? `${noMailServer()} Passwords are at least 10 characters.` : 'We email you a link to verify your address. Passwords are at least 10 characters.'),
    ),
    h('p', { class: 'muted' }, 'Operators: ', h('a', { href: '/console', 'data-nav': '' }, 'open the console'), '.'),
  );
}

async function viewVerify(token) {
  if (!token) return show('Verify your email', h('p', { class: 'bad' }, 'This link has no token.'));
  try {
    await api('POST', '/dashboard/api/verify-email', { token });
    await refresh();
    show('Email verified', h('div', { class: 'card' }, h('p', { class: 'ok' }, 'Thank you — your email is verified. Your keys can call models now.'), h('a', { href: '/account', 'data-nav': '' }, 'Go to your account')));
  } catch (e) {
    // The link followed a second time (a second click in the mail) by its signed-in account: the
    // link is spent, as the API says, but nothing is left to do, and the page says so.
    if (e.status === 400 && state.account && state.account.email_verified) {
      return show('Verify your email', h('div', { class: 'card' }, h('p', { class: 'bad' }, e.message), h('p', { class: 'ok' }, 'Your email is already verified: your keys can call models.'), h('a', { href: '/account', 'data-nav': '' }, 'Go to your account')));
    }
    show('Verify your email', h('div', { class: 'card' }, h('p', { class: 'bad' }, e.message), state.account
      ? h('a', { href: '/account', 'data-nav': '' }, 'Go to your account to get a new link')
      : h('p', {}, h('a', { href: '/', 'data-nav': '' }, 'Sign in'), ' and ask for a new link from your account page.')));
  }
}

function viewForgot() {
  const email = field('email', 'Email', { type: 'email', autocomplete: 'email', required: '' });
  show('Reset your password', h('div', { class: 'card' }, jsonForm({
    fields: [email],
    label: 'Email me a link',
    submit: (body) => api('POST', '/dashboard/api/password-reset', body),
    onDone: async () => toast(!state.sends_email ? `If that email has an account, a reset link was written to ${outboxFolder()}.` : 'If that email has an account, a reset link is on its way.'),
  })));
}

function viewReset(token) {
  if (!token) return show('Choose a new password', h('p', { class: 'bad' }, 'This link has no token.'));
  const password = field('password', 'New password', { type: 'password', autocomplete: 'new-password', required: '', minlength: '10' });
  show('Choose a new password', h('div', { class: 'card' }, jsonForm({
    fields: [password],
    label: 'Set password',
    submit: async (body) => {
      try {
        return await api('POST', '/dashboard/api/password-reset/confirm', { token, ...body });
      } catch (err) {
        // The link is dead (spent, expired, cut short): no other password helps, a new link does.
        if (err.status !== 400 || err.message.startsWith('password:')) throw err;
        show('Choose a new password', h('div', { class: 'card' }, h('p', { class: 'bad', role: 'alert' }, err.message),
          h('p', {}, 'A reset link works once, within 60 minutes. ', h('a', { href: '/account/forgot', 'data-nav': '' }, 'Ask for a new link'), '.')));
        return null;
      }
    },
    onDone: async (changed) => {
      if (!changed) return;
      toast('Password changed. Sign in with it.');
      go('/');
    },
  })));
}

function verifyBanner() {
  if (state.account.email_verified) return null;
  const text = h('span', {}, verificationNotSent
    ? `We could not send the verification email to ${state.account.email}: your account is ready, but your keys are answered 403 until the email is verified. Press Resend the link to try again.`
    : pleaseVerify());
  const button = h('button', { type: 'button', class: 'secondary', onclick: async () => {
    button.disabled = true;
    try {
      await api('POST', '/dashboard/api/verify-email/resend');
      verificationNotSent = false;
      text.textContent = pleaseVerify();
      toast(!state.sends_email ? `A new verification link was written to ${outboxFolder()}.` : 'A new verification link was sent.');
    } catch (e) {
      toast(e.message);
    } finally {
      button.disabled = false;
    }
  } }, 'Resend the link');
  return h('div', { class: 'banner', role: 'alert' }, text, button);
}

function pleaseVerify() {
  const verify = `Verify your email (${state.account.email}) to use your keys: the gateway answers 403 until then.`;
  return state.sends_email ? verify : `${verify} ${noMailServer()}`;
}

/**
 * Without a mail server (a local install) nothing reaches an inbox: where the emails are instead,
 * as the service is configured, so the user does not wait for one.
 */
function noMailServer() {
  return `This service sends no email (SMTP_URL is not set): each link is written to a file in ${outboxFolder()} on the machine that runs it, and to its log.`;
}

/** The folder as configured once signed in; before that the session names no server path. */
function outboxFolder() {
  return state.mail_outbox ? `${state.mail_outbox}/` : 'DATA_DIR/outbox/';
}

function viewOverview() {
  const a = state.account;
  show('Overview',
    verifyBanner() || '',
    // A new account starts at zero: without this its first call's 402 is the first it hears of it.
    a.credits <= 0 ? h('div', { class: 'banner', role: 'status' }, h('span', {}, `Your balance is ${money(a.credits)} credits: calls are answered 402 until credits are added. `), h('a', { href: '/account/credits', 'data-nav': '' }, 'Add credits')) : '',
    h('div', { class: 'grid' },
      h('section', { class: 'card' }, h('h2', {}, 'Balance'), h('p', { class: 'big', 'data-testid': 'balance' }, `${money(a.credits)} credits`), h('p', { class: 'muted' }, `${money(a.available)} available · 1 credit = $0.001`), h('a', { href: '/account/credits', 'data-nav': '' }, 'Ledger and top-up')),
      h('section', { class: 'card' }, h('h2', {}, 'Keys'), h('p', {}, 'Make an svk_ key and call any model with the OpenAI or Anthropic SDK.'), h('a', { href: '/account/keys', 'data-nav': '' }, 'Manage keys')),
    ),
    h('section', { class: 'card' }, h('h2', {}, 'First call'),
      h('pre', { class: 'code' }, `export SVC_KEY=svk_...   # your key, from the Keys page\ncurl ${location.origin}/v1/chat/completions \\\n  -H "Authorization: Bearer $SVC_KEY" -H 'content-type: application/json' \\\n  -d '{"model": "svc-fast", "messages": [{"role": "user", "content": "Say hi"}]}'`)),
  );
}

async function viewKeys() {
  const list = h('div', { class: 'table-wrap' });
  const created = h('div', { 'aria-live': 'polite' });
  // The key whose secret `created` shows: revoked, its secret leaves the page.
  let shownKeyId = null;
  // A Rename or Revoke button goes with its row when the list is drawn again: the focus moves
  // here, not to the top of the page, so a keyboard user stays at the keys.
  const listHeading = h('h2', { tabindex: '-1' }, 'Your keys');
  // No maxlength: the browser counts UTF-16 units (an emoji is two), the API characters; its
  // 400 `name: must be at most 100 characters` shows under the field.
  const name = field('name', 'Key name', { required: '', placeholder: 'laptop' });
  const form = jsonForm({
    fields: [name],
    label: 'Create key',
    submit: (body) => api('POST', '/dashboard/api/keys', body),
    onDone: async (k) => {
      const secret = h('p', { class: 'secret', 'data-testid': 'new-key' }, k.key);
      const copy = h('button', { type: 'button', class: 'secondary', onclick: async () => {
        try {
          await navigator.clipboard.writeText(k.key);
          toast('Copied.');
        } catch {
          toast('Select the key and copy it.');
        }
      } }, 'Copy');
      created.replaceChildren(h('div', { class: 'card' }, h('h2', {}, `Key "${k.name}" created`), h('p', {}, 'Copy it now: it is shown only once.'), secret, copy));
      shownKeyId = k.id;
      name.input.value = '';
      await load();
    },
  });
  // Outside a form there is no field to show an error under: the status line says why (a
  // session ended elsewhere, a name the API refused, ...).
  const renameButton = (k) => h('button', { type: 'button', class: 'secondary', 'aria-label': `Rename key ${k.name}`, onclick: async () => {
    const next = prompt(`New name for the key "${k.name}" (the key itself does not change):`, k.name);
    if (next === null || next === k.name) return;
    try {
      const renamed = await api('PATCH', `/dashboard/api/keys/${k.id}`, { name: next });
      toast(`Key renamed to "${renamed.name}".`);
    } catch (err) {
      toast(err.message);
      return;
    }
    await load();
    listHeading.focus();
  } }, 'Rename');
  const revokeButton = (k) => h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke key ${k.name}`, onclick: async () => {
    if (!confirm(`Revoke the key "${k.name}"? Programs using it stop working at once.`)) return;
    try {
      await api('DELETE', `/dashboard/api/keys/${k.id}`);
    } catch (err) {
      toast(err.message);
      return;
    }
    toast(`Key "${k.name}" revoked.`);
    if (k.id === shownKeyId) {
      created.replaceChildren();
      shownKeyId = null;
    }
    await load();
    listHeading.focus();
  } }, 'Revoke');
  async function load() {
    const { keys } = await api('GET', '/dashboard/api/keys');
    if (keys.length === 0) return list.replaceChildren(h('p', { class: 'muted' }, 'No keys yet.'));
    list.replaceChildren(h('table', {},
      h('thead', {}, h('tr', {}, ...['Name', 'Key', 'Created', 'Last used', 'Status', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...keys.map((k) => h('tr', {},
        h('td', {}, k.name), h('td', {}, `${k.prefix}…`), h('td', {}, new Date(k.created_at).toLocaleString()),
        h('td', {}, k.last_used_at ? new Date(k.last_used_at).toLocaleString() : 'never'),
        h('td', { class: k.revoked_at ? 'bad' : 'ok' }, k.revoked_at ? 'revoked' : 'active'),
        h('td', {}, k.revoked_at ? '' : h('div', { class: 'row' }, renameButton(k), revokeButton(k))),
      ))),
    ));
  }
  show('Keys', verifyBanner() || '', h('section', { class: 'card' }, h('h2', {}, 'New key'), form), created, h('section', { class: 'card' }, listHeading, list));
  await load();
}

const PALETTE = ['#2456d6', '#e07b00', '#067647', '#9e2db3', '#b42318', '#0e7490', '#6b7280'];

/** A stacked bar chart of a value per day and model, as SVG. */
function chart(title, daily, value, unit) {
  const days = [...new Set(daily.map((d) => d.day))].sort();
  const models = [...new Set(daily.map((d) => d.model))].sort();
  const W = 720, H = 220, pad = 36;
  const totals = days.map((day) => daily.filter((d) => d.day === day).reduce((s, d) => s + value(d), 0));
  const max = Math.max(1e-9, ...totals);
  const bw = days.length ? Math.min(48, (W - pad * 2) / days.length) : 0;
  const bars = [];
  days.forEach((day, i) => {
    let y = H - pad;
    models.forEach((m, j) => {
      const d = daily.find((x) => x.day === day && x.model === m);
      if (!d) return;
      const bh = ((H - pad * 2) * value(d)) / max;
      y -= bh;
      bars.push(`<rect x="${pad + i * bw + 2}" y="${y}" width="${Math.max(1, bw - 4)}" height="${bh}" fill="${PALETTE[j % PALETTE.length]}"><title>${day} ${m}: ${value(d)} ${unit}</title></rect>`);
    });
  });
  const label = (t) => String(t).replace(/[<&>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const svg = `<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${label(title)}" xmlns="http://www.w3.org/2000/svg">
    <line x1="${pad}" y1="${H - pad}" x2="${W - pad}" y2="${H - pad}" stroke="#999"/>
    <text x="${pad}" y="${pad - 10}" font-size="12" fill="#5b6570">max ${label(max.toLocaleString())} ${label(unit)}</text>
    ${bars.join('')}
    ${days.length ? `<text x="${pad}" y="${H - 12}" font-size="12" fill="#5b6570">${label(days[0])}</text><text x="${W - pad}" y="${H - 12}" font-size="12" text-anchor="end" fill="#5b6570">${label(days[days.length - 1])}</text>` : ''}
  </svg>`;
  const box = h('div', { class: 'chart' });
  box.innerHTML = svg;
  return h('section', { class: 'card' }, h('h2', {}, title), days.length ? box : h('p', { class: 'muted' }, 'Nothing in this range.'),
    h('div', { class: 'legend' }, ...models.map((m, j) => h('span', { style: `--c:${PALETTE[j % PALETTE.length]}` }, m))));
}

async function viewUsage(params) {
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.now() - 29 * 86400000).toISOString().slice(0, 10);
  const from = field('from', 'From', { type: 'date', value: params.get('from') || monthAgo });
  const to = field('to', 'To', { type: 'date', value: params.get('to') || today });
  const body = h('div', {});
  const form = h('form', { class: 'row' }, from.el, to.el, h('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    go(`/account/usage?from=${from.value()}&to=${to.value()}`);
  });
  show('Usage', h('section', { class: 'card' }, form), body);
  let data;
  try {
    data = await api('GET', `/dashboard/api/usage?from=${encodeURIComponent(from.value())}&to=${encodeURIComponent(to.value())}`);
  } catch (e) {
    formErrors([from, to], e.message);
    return;
  }
  const csv = `/dashboard/api/usage.csv?from=${data.from}&to=${data.to}`;
  body.replaceChildren(
    h('section', { class: 'card' }, h('h2', {}, 'Total'), h('p', { class: 'big', 'data-testid': 'usage-total' }, `${money(data.total_credits)} credits`), h('a', { href: csv, download: '' }, 'Download CSV')),
    chart('Credits per day', data.daily, (d) => d.credits, 'credits'),
    chart('Tokens per day', data.daily, (d) => d.input_tokens + d.output_tokens, 'tokens'),
    h('section', { class: 'card' }, h('h2', {}, 'Recent requests'), data.recent.length === 0 ? h('p', { class: 'muted' }, 'No requests in this range.') : h('div', { class: 'table-wrap' }, h('table', { 'data-testid': 'usage-table' },
      h('thead', {}, h('tr', {}, ...['Time', 'Model', 'Served by', 'Lane', 'Tokens in', 'Cached', 'Out', 'Images', 'Credits', 'Status', 'Latency'].map((t, i) => h('th', { scope: 'col', class: i >= 4 ? 'num' : null }, t)))),
      h('tbody', {}, ...data.recent.map((r) => h('tr', {},
        h('td', {}, new Date(r.time).toLocaleString()), h('td', {}, r.model), h('td', {}, r.served_model || ''), h('td', {}, r.lane || ''),
        h('td', { class: 'num' }, tokens(r.input_tokens)), h('td', { class: 'num' }, tokens(r.cached_input_tokens)), h('td', { class: 'num' }, tokens(r.output_tokens)), h('td', { class: 'num' }, tokens(r.images)),
        h('td', { class: 'num' }, money(r.credits)), h('td', { class: r.status < 400 ? 'ok num' : 'bad num' }, String(r.status)), h('td', { class: 'num' }, `${r.latency_ms} ms`),
      ))),
    ))),
  );
}

/** Ledger rows per page of the Credits page; older pages by the API's `before` cursor. */
const LEDGER_PAGE = 25;

async function viewCredits(params) {
  const before = params.get('before');
  const { account, ledger, next_before } = await api('GET', `/dashboard/api/credits?limit=${LEDGER_PAGE}${before ? `&before=${encodeURIComponent(before)}` : ''}`);
  const parts = [h('section', { class: 'card' }, h('h2', {}, 'Balance'), h('p', { class: 'big', 'data-testid': 'balance' }, `${money(account.credits)} credits`), h('p', { class: 'muted' }, `= $${(account.credits / 1000).toFixed(2)} · 1 credit = $0.001`))];
  // Stripe Checkout comes back here with `topup`; where card payments are not set up no payment
  // can have happened, whatever the address says.
  const topup = state.topup_enabled ? params.get('topup') : null;
  if (topup === 'success') parts.unshift(h('p', { class: 'ok', role: 'status' }, 'Payment received: credits appear here as soon as Stripe confirms it.'));
  if (topup === 'cancelled') parts.unshift(h('p', { class: 'muted', role: 'status' }, 'Payment cancelled: nothing was charged.'));
  if (!state.topup_enabled) {
    parts.push(h('section', { class: 'card' }, h('h2', {}, 'Add credits'), h('p', {}, `Card payments are not set up here: ask the operator of this service to add credits to account ${account.id} (${account.email}).`)));
  } else {
    const usd = field('usd', 'Amount (USD, 5 to 1000)', { type: 'number', min: '5', max: '1000', step: '1', value: '20', required: '' });
    parts.push(h('section', { class: 'card' }, h('h2', {}, 'Top up'), jsonForm({
      fields: [usd],
      label: 'Pay with Stripe',
      submit: (body) => api('POST', '/dashboard/api/top-up', { usd: Number(body.usd) }),
      onDone: async ({ url }) => { location.href = url; },
    })));
  }
  parts.push(h('section', { class: 'card' }, h('h2', {}, 'Ledger'), h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, ...['Time', 'Kind', 'Credits', 'Balance after', 'Note'].map((t, i) => h('th', { scope: 'col', class: i === 2 || i === 3 ? 'num' : null }, t)))),
    h('tbody', {}, ...ledger.map((l) => h('tr', {}, h('td', {}, new Date(l.time).toLocaleString()), h('td', {}, l.kind), h('td', { class: 'num' }, money(l.credits)), h('td', { class: 'num' }, money(l.balance_after)), h('td', {}, l.note || '')))),
  )), ledger.length === 0 ? h('p', { class: 'muted' }, 'No ledger rows here.') : null,
  h('nav', { class: 'row', 'aria-label': 'Ledger pages' },
    before ? h('a', { href: '/account/credits', 'data-nav': '' }, 'Newest') : null,
    next_before !== null ? h('a', { href: `/account/credits?before=${next_before}`, 'data-nav': '' }, 'Older') : null)));
  show('Credits', ...parts);
}

void route();
