// The operator console: accounts, markets, withdrawals and upstream health, through the /admin
// API with the console's session (opened with the admin token, or by an operator account).
import { h, field, formErrors, money, toast } from './ui.js';

export async function renderConsole({ show, api, state, refresh, go }) {
  if (!state.operator) {
    const token = field('token', 'Admin token', { type: 'password', autocomplete: 'off', required: '' });
    const form = h('form', { class: 'stack' }, token.el, h('button', { type: 'submit' }, 'Open the console'));
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      formErrors([token], null);
      try {
        await api('POST', '/dashboard/api/operator/sign-in', { token: token.value() });
        await refresh();
        go('/console');
      } catch (err) {
        formErrors([token], err.message);
      }
    });
    return show('Operator console', h('div', { class: 'card' }, h('p', {}, 'Sign in with the admin token (data/admin-token), or with an operator account.'), form));
  }

  const panel = h('div', {});
  const tabs = [['accounts', 'Accounts', accountsTab], ['markets', 'Markets', marketsTab], ['withdrawals', 'Withdrawals', withdrawalsTab], ['upstreams', 'Upstreams', upstreamsTab]];
  const current = new URLSearchParams(location.search).get('tab') || 'accounts';
  const bar = h('div', { class: 'tabs', role: 'tablist' }, ...tabs.map(([id, label]) =>
    h('button', { type: 'button', role: 'tab', 'aria-selected': String(id === current), onclick: () => go(`/console?tab=${id}`) }, label)));
  show('Operator console', bar, panel);
  const tab = tabs.find(([id]) => id === current) || tabs[0];
  try {
    await tab[2](panel, api);
  } catch (e) {
    panel.replaceChildren(h('p', { class: 'bad' }, e.message));
  }
}

async function accountsTab(panel, api) {
  const email = field('email', 'Find by email', { type: 'search', placeholder: 'part of an address' });
  const results = h('div', {});
  const detail = h('div', {});
  const form = h('form', { class: 'row' }, email.el, h('button', { type: 'submit' }, 'Find'));
  async function find() {
    const { data } = await api('GET', `/admin/accounts?email=${encodeURIComponent(email.value())}`);
    results.replaceChildren(h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ...['Id', 'Email', 'Verified', 'Credits', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...data.map((a) => h('tr', {}, h('td', {}, String(a.id)), h('td', {}, a.email), h('td', {}, a.email_verified ? 'yes' : 'no'), h('td', { class: 'num' }, money(a.credits)),
        h('td', {}, h('button', { type: 'button', class: 'secondary', onclick: () => open(a.id).catch((e) => toast(e.message)) }, 'Open'))))),
    )));
  }
  async function open(id) {
    const a = await api('GET', `/admin/accounts/${id}`);
    const usage = await api('GET', `/admin/accounts/${id}/usage?limit=20`);
    const credits = field('credits', 'Grant credits (negative takes away)', { type: 'number', step: 'any', required: '' });
    const note = field('note', 'Note', { maxlength: '500' });
    const grant = h('form', { class: 'row' }, credits.el, note.el, h('button', { type: 'submit' }, 'Grant'));
    grant.addEventListener('submit', async (e) => {
      e.preventDefault();
      formErrors([credits, note], null);
      try {
        await api('POST', `/admin/accounts/${id}/credits`, { credits: Number(credits.value()), ...(note.value() ? { note: note.value() } : {}) });
        toast('Credits granted.');
        await open(id);
      } catch (err) {
        formErrors([credits, note], err.message);
      }
    });
    detail.replaceChildren(h('section', { class: 'card' },
      h('h2', {}, `Account ${a.id}: ${a.email}`),
      h('p', {}, `Balance ${money(a.credits)} credits (${money(a.available)} available) · email ${a.email_verified ? 'verified' : 'not verified'}`),
      a.email_verified ? '' : h('button', { type: 'button', onclick: async () => { try { await api('POST', `/admin/accounts/${id}/verify-email`); toast('Verified.'); await open(id); } catch (e) { toast(e.message); } } }, 'Mark email verified'),
      grant,
      h('h2', {}, 'Keys'),
      h('ul', {}, ...a.keys.map((k) => h('li', {}, `${k.name || '(unnamed)'} ${k.prefix}… ${k.revoked_at ? 'revoked' : 'active'}`))),
      h('h2', {}, 'Recent usage'),
      h('div', { class: 'table-wrap' }, h('table', {}, h('tbody', {}, ...usage.data.map((u) => h('tr', {}, h('td', {}, new Date(u.created_at).toLocaleString()), h('td', {}, u.model), h('td', { class: 'num' }, money(u.credits ?? u.cost)), h('td', {}, String(u.status))))))),
    ));
  }
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void find().catch((err) => formErrors([email], err.message));
  });
  panel.replaceChildren(h('section', { class: 'card' }, form, results), detail);
  await find();
}

async function marketsTab(panel, api) {
  const list = h('div', {});
  const title = field('title', 'Title', { required: '', maxlength: '200' });
  const category = field('category', 'Category', { value: 'General', required: '', maxlength: '100' });
  const type = field('market_type', 'Type (yesno, threeway, updown, custom)', { value: 'yesno', required: '' });
  const end = field('end_date', 'Ends (ISO date-time)', { value: new Date(Date.now() + 7 * 86400000).toISOString(), required: '' });
  const create = h('form', { class: 'stack' }, title.el, category.el, type.el, end.el, h('button', { type: 'submit' }, 'Create market'));
  create.addEventListener('submit', async (e) => {
    e.preventDefault();
    const fields = [title, category, type, end];
    formErrors(fields, null);
    try {
      await api('POST', '/admin/markets', { title: title.value(), category: category.value(), market_type: type.value(), end_date: end.value(), status: 'active' });
      toast('Market created.');
      await load();
    } catch (err) {
      formErrors(fields, err.message);
    }
  });
  async function act(m, verb, body) {
    await api('POST', `/admin/markets/${m.id}/${verb}`, body);
    toast(`Market ${m.id}: ${verb} done.`);
    await load();
  }
  async function resolve(m) {
    const outcome = prompt(`Resolve "${m.title}": which outcome won? (${(m.outcomes || []).map((o) => o.id ?? o.outcome ?? o.name).join(', ') || 'yes, no'})`);
    if (!outcome) return;
    // Twice: paying out cannot be undone.
    if (!confirm(`Resolve market ${m.id} "${m.title}" to "${outcome}" and pay the winners?`)) return;
    if (!confirm(`Really resolve to "${outcome}"? This cannot be undone.`)) return;
    await act(m, 'resolve', { outcome });
  }
  async function load() {
    const res = await api('GET', '/api/markets?limit=50&sort=newest');
    const markets = res.data || res.markets || [];
    list.replaceChildren(h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, ...['Id', 'Title', 'Status', ''].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...markets.map((m) => h('tr', {}, h('td', {}, String(m.id)), h('td', {}, m.title), h('td', {}, m.status),
        h('td', { class: 'row' },
          h('button', { type: 'button', class: 'secondary', onclick: () => act(m, 'feature').catch((e) => toast(e.message)) }, 'Feature'),
          m.status === 'active' || m.status === 'pending' ? h('button', { type: 'button', onclick: () => resolve(m).catch((e) => toast(e.message)), 'aria-label': `Resolve market ${m.id}` }, 'Resolve') : '',
          m.status === 'active' || m.status === 'pending' ? h('button', { type: 'button', class: 'danger', onclick: () => { if (confirm(`Cancel market ${m.id} and refund every stake?`) && confirm('Really cancel? This cannot be undone.')) void act(m, 'cancel').catch((e) => toast(e.message)); } }, 'Cancel') : '',
        )))),
    )));
  }
  panel.replaceChildren(h('section', { class: 'card' }, h('h2', {}, 'New market'), create), h('section', { class: 'card' }, h('h2', {}, 'Markets'), list));
  await load();
}

async function withdrawalsTab(panel, api) {
  const { data } = await api('GET', '/admin/withdrawals?status=pending&limit=100');
  panel.replaceChildren(h('section', { class: 'card' }, h('h2', {}, 'Pending withdrawals'), data.length === 0 ? h('p', { class: 'muted' }, 'None waiting.') : h('div', { class: 'table-wrap' }, h('table', {},
    h('thead', {}, h('tr', {}, ...['Id', 'Wallet', 'Amount', 'To', 'Requested', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...data.map((w) => h('tr', {}, h('td', {}, String(w.id)), h('td', {}, w.wallet), h('td', { class: 'num' }, String(w.amount)), h('td', {}, w.destination || w.to_address || ''), h('td', {}, w.created_at ? new Date(w.created_at).toLocaleString() : ''),
      h('td', { class: 'row' },
        h('button', { type: 'button', onclick: async () => { const tx = prompt('Transaction hash that paid it'); if (!tx) return; try { await api('POST', `/admin/withdrawals/${w.id}/complete`, { tx_hash: tx }); toast('Completed.'); await withdrawalsTab(panel, api); } catch (e) { toast(e.message); } } }, 'Complete'),
        h('button', { type: 'button', class: 'danger', onclick: async () => { if (!confirm(`Reject withdrawal ${w.id} and return the funds?`)) return; try { await api('POST', `/admin/withdrawals/${w.id}/reject`, {}); toast('Rejected.'); await withdrawalsTab(panel, api); } catch (e) { toast(e.message); } } }, 'Reject'),
      )))),
  ))));
}

async function upstreamsTab(panel, api) {
  let data;
  try {
    data = await api('GET', '/admin/upstreams');
  } catch (e) {
    panel.replaceChildren(h('p', { class: 'muted' }, e.status === 404 ? 'Upstream health is not available on this service.' : e.message));
    return;
  }
  const rows = Array.isArray(data) ? data : data.deployments || data.data || [];
  panel.replaceChildren(h('section', { class: 'card' }, h('h2', {}, 'Upstreams'), h('div', { class: 'table-wrap' }, h('table', {},
    h('tbody', {}, ...rows.map((d) => h('tr', {}, ...Object.entries(d).filter(([, v]) => typeof v !== 'object').map(([k, v]) => h('td', {}, `${k}: ${v}`)))))))));
}
