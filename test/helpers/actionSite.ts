/**
 * Pages that need a person's actions, for the page-action tests: a "Load more"
 * button, an endless list appended on scroll, a virtualized list that keeps only
 * ~20 rows in the DOM, a search form, an element that appears late, and a login
 * (a cookie and local storage) in front of an account page. Loopback only.
 */
import type http from 'node:http';
import { html, sendHtml, type Handler } from './fixtureServer.js';

const item = (n: number) => `Item number ${n} of the list`;

/** "Load more" adds five items a click, up to 20. */
const loadMore = html(`<main><h1>Products</h1><ul id="list">${[1, 2, 3, 4, 5].map((n) => `<li>${item(n)}</li>`).join('')}</ul>
<button id="more">Load more</button></main>
<script>
let shown = 5;
document.getElementById('more').addEventListener('click', () => {
  setTimeout(() => {
    for (let i = 0; i < 5 && shown < 20; i++) { shown++; const li = document.createElement('li'); li.textContent = 'Item number ' + shown + ' of the list'; document.getElementById('list').append(li); }
    if (shown >= 20) document.getElementById('more').remove();
  }, 30);
});
</script>`, { title: 'Load more' });

/** 20 items at first; each time the end comes into view, 20 more after a moment, up to 100. */
const endless = html(`<main><h1>Feed</h1><div id="feed">${Array.from({ length: 20 }, (_, i) => `<p class="post">${item(i + 1)}</p>`).join('')}</div></main>
<style>.post { height: 60px; margin: 0; }</style>
<script>
let count = 20, loading = false;
addEventListener('scroll', () => {
  if (loading || count >= 100) return;
  if (innerHeight + scrollY < document.body.scrollHeight - 100) return;
  loading = true;
  setTimeout(() => {
    const feed = document.getElementById('feed');
    for (let i = 0; i < 20; i++) { count++; const p = document.createElement('p'); p.className = 'post'; p.textContent = 'Item number ' + count + ' of the list'; feed.append(p); }
    loading = false;
  }, 50);
});
</script>`, { title: 'Endless feed' });

/** 200 rows of 30 px in a 600 px box: only the ~20 in view (and a few more) are in the DOM. */
const virtual = html(`<main><h1>Big table</h1><div id="viewport" style="height:600px;overflow-y:auto;position:relative">
<div id="spacer" style="height:6000px;position:relative"></div></div></main>
<script>
const viewport = document.getElementById('viewport'), spacer = document.getElementById('spacer');
function render() {
  const first = Math.max(0, Math.floor(viewport.scrollTop / 30) - 2), last = Math.min(200, first + 24);
  const rows = [];
  for (let i = first; i < last; i++) rows.push('<div class="row" style="position:absolute;top:' + (i * 30) + 'px;height:30px">Row ' + (i + 1) + ' of the virtual table</div>');
  spacer.innerHTML = rows.join('');
}
viewport.addEventListener('scroll', render);
render();
</script>`, { title: 'Virtual list' });

const search = html(`<main><h1>Search</h1><form id="f" action="/results"><input id="q" name="q"><button>Go</button></form></main>`, { title: 'Search' });

const late = html(`<main><h1>Late</h1><div id="root"></div></main>
<script>setTimeout(() => { document.getElementById('root').innerHTML = '<p class="late">Content that came late from a script</p>'; }, 300);</script>`, { title: 'Late' });

const loginForm = html(`<main><h1>Sign in</h1><form method="post" action="/login"><input id="user" name="user"><input id="password" name="password" type="password"><button id="go">Sign in</button></form></main>`, { title: 'Sign in' });

function cookieOf(req: http.IncomingMessage, name: string): string | undefined {
  return (req.headers.cookie ?? '').split(';').map((c) => c.trim().split('=')).find(([k]) => k === name)?.[1];
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => resolve(body));
  });
}

/** The routes of the action test site. */
export function actionRoutes(): Record<string, Handler> {
  return {
    '/more': (_req, res) => sendHtml(res, loadMore),
    '/endless': (_req, res) => sendHtml(res, endless),
    '/virtual': (_req, res) => sendHtml(res, virtual),
    '/search': (_req, res) => sendHtml(res, search),
    '/results': (req, res) => {
      const q = new URL(req.url!, 'http://x').searchParams.get('q') ?? '';
      sendHtml(res, html(`<main><h1>Results for ${q.replace(/[<&"]/g, '')}</h1><p>Three results were found for your search.</p></main>`, { title: 'Results' }));
    },
    '/late': (_req, res) => sendHtml(res, late),
    '/login': async (req, res) => {
      if (req.method !== 'POST') return sendHtml(res, loginForm);
      const form = new URLSearchParams(await readBody(req));
      if (form.get('user') !== 'ada' || form.get('password') !== 'secret') return sendHtml(res, html('<h1>Wrong password</h1>'), 401);
      res.writeHead(303, { location: '/account', 'set-cookie': 'session=s3cr3t-session; Path=/; HttpOnly; Max-Age=3600' });
      res.end();
    },
    '/account': (req, res) => {
      if (cookieOf(req, 'session') !== 's3cr3t-session') return sendHtml(res, html('<main><h1>Please sign in</h1><p>You are not signed in.</p></main>', { title: 'Account' }));
      sendHtml(
        res,
        html(`<main><h1>Welcome back, Ada</h1><p>Your orders: three books and a lamp.</p><p id="theme"></p></main>
<script>if (!localStorage.getItem('theme')) localStorage.setItem('theme', 'dark'); document.getElementById('theme').textContent = 'Theme: ' + localStorage.getItem('theme');</script>`, { title: 'Account' }),
      );
    },
  };
}
