// PlayerHost's web remote. The host pushes a `state` message only when something changes; the
// progress bar is animated here from its anchors (elapsed at the host's `timestamp`, moving at
// `rate`), placed on this page's clock with the host time the message carries (`now`). Nothing is
// polled. Every button is a `command` the host runs through the session's command center.
'use strict';

const $ = (id) => document.getElementById(id);
let socket = null;
let state = null;          // the last `state` message
let hostAtReceipt = 0;     // the host's clock (s) when it was received…
let pageAtReceipt = 0;     // …and this page's (ms, performance.now)
let nextId = 1;
let retryMs = 500;
let retryTimer = null;
let frame = 0;
let seeking = false;

function now() { return state ? hostAtReceipt + (performance.now() - pageAtReceipt) / 1000 : 0; }

function position() {
  const np = state && state.nowPlaying;
  if (!np) return 0;
  let p = np.elapsed || 0;
  if (np.state === 'playing' && np.timestamp !== undefined) {
    const gap = now() - np.timestamp;
    if (gap > 0 && gap < 86400) p += (np.rate || 0) * gap;
  }
  if (np.duration > 0) p = Math.min(p, np.duration);
  return Math.max(0, p);
}

function clock(s) {
  s = Math.floor(s);
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

function connect() {
  clearTimeout(retryTimer);
  retryTimer = null;
  if (socket && socket.readyState <= 1) return;
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws';
  $('connection').textContent = 'connecting…';
  socket = new WebSocket(url);
  socket.onopen = () => { retryMs = 500; $('connection').textContent = 'connected'; };
  socket.onmessage = (e) => {
    let m;
    try { m = JSON.parse(e.data); } catch { return; }
    if (m.type === 'state') {
      state = m;
      hostAtReceipt = m.now;
      pageAtReceipt = performance.now();
      render();
    } else if (m.type === 'reply' && !m.ok) {
      say(m.message || 'refused');
    }
  };
  socket.onclose = () => {
    socket = null;
    $('connection').textContent = 'disconnected';
    // A revoked or unpaired device: the page itself says what to do.
    fetch('/', { method: 'HEAD', cache: 'no-store' }).then((r) => {
      if (r.status === 401) location.reload();
    }).catch(() => {});
    retryLater();
  };
}

// Backoff while visible; a hidden page does not retry at all (a sleeping phone never loops): it
// reconnects at once when it is shown again or the network comes back.
function retryLater() {
  if (document.hidden || retryTimer) return;
  retryTimer = setTimeout(() => { retryTimer = null; connect(); }, retryMs);
  retryMs = Math.min(retryMs * 2, 30000);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) { retryMs = 500; connect(); animate(); }
});
window.addEventListener('online', () => { retryMs = 500; connect(); });
window.addEventListener('pageshow', () => connect());

function send(type, fields) {
  if (!socket || socket.readyState !== 1) { say('not connected'); return; }
  socket.send(JSON.stringify(Object.assign({ id: nextId++, type }, fields)));
}

function command(name, extra) {
  const np = state && state.nowPlaying;
  send('command', Object.assign({ command: name }, np ? { session: np.session } : {}, extra || {}));
}

function say(text) {
  const m = $('message');
  m.textContent = text;
  m.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { m.hidden = true; }, 4000);
}

let shownArt = null;
function render() {
  const np = state.nowPlaying;
  $('title').textContent = np ? (np.title || np.session) : 'Nothing playing';
  $('artist').textContent = (np && np.artist) || '';
  $('album').textContent = (np && np.album) || '';
  $('state').textContent = np ? `${np.state} · ${np.session}` : '';
  document.body.dataset.state = np ? np.state : 'none';
  const art = np && np.art ? `/art/${np.art}?size=512` : null;
  // An old cover never shows on a new title: it goes the moment the state changes.
  if (art !== shownArt) {
    shownArt = art;
    $('art').hidden = !art;
    if (art) $('art').src = art; else $('art').removeAttribute('src');
  }
  $('duration').textContent = np && np.duration ? clock(np.duration) : '–:––';
  $('seek').max = np && np.duration ? np.duration : 1;
  $('seek').disabled = !(np && np.duration);
  if (np && np.rate > 0) $('rate').value = String(np.rate);
  if (np && typeof np.volume === 'number' && document.activeElement !== $('volume')) $('volume').value = np.volume;
  renderSessions();
  mediaSession();
  document.body.dataset.title = np && np.title ? np.title : '';
  animate();
}

function renderSessions() {
  const list = $('sessions');
  list.textContent = '';
  for (const s of state.sessions) {
    const li = document.createElement('li');
    if (s.isNowPlaying) li.className = 'now';
    const label = document.createElement('span');
    label.textContent = `${s.id} · ${s.kind} · ${s.appName || s.app} — ${s.playbackState}${s.isActive ? '' : ' (inactive)'}`;
    li.append(label);
    // Only where it can work: a session that cannot become active (no active audio session,
    // no command) would only get a refusal.
    if (!s.isActive && s.canBecomeActive) {
      const b = document.createElement('button');
      b.textContent = 'Promote';
      b.onclick = () => send('promote', { session: s.id });
      li.append(b);
    }
    list.append(li);
  }
}

// One animation frame at a time, only while something moves and the page is shown.
function animate() {
  if (frame) return;
  const tick = () => {
    frame = 0;
    const np = state && state.nowPlaying;
    const p = position();
    $('elapsed').textContent = clock(p);
    if (!seeking) $('seek').value = p;
    if (np && np.state === 'playing' && np.rate > 0 && !document.hidden) frame = requestAnimationFrame(tick);
  };
  frame = requestAnimationFrame(tick);
}

for (const b of document.querySelectorAll('#transport button')) {
  b.addEventListener('click', () => command(b.dataset.command));
}
$('seek').addEventListener('input', () => { seeking = true; $('elapsed').textContent = clock(Number($('seek').value)); });
$('seek').addEventListener('change', () => {
  seeking = false;
  command('changePlaybackPosition', { position: Number($('seek').value) });
});
$('rate').addEventListener('change', () => command('changePlaybackRate', { rate: Number($('rate').value) }));
$('volume').addEventListener('change', () => command('changeVolume', { volume: Number($('volume').value) }));

// The phone's lock screen: Media Session metadata and handlers, shown while the silent loop plays.
const lock = $('lockscreen');
lock.checked = localStorage.getItem('lockscreen') === 'on';
lock.addEventListener('change', () => {
  localStorage.setItem('lockscreen', lock.checked ? 'on' : 'off');
  if (lock.checked) $('silence').play().catch((e) => say(`cannot play: ${e.message}`));
  else $('silence').pause();
  mediaSession();
});

function mediaSession() {
  if (!('mediaSession' in navigator) || !state) return;
  const ms = navigator.mediaSession;
  const np = state.nowPlaying;
  if (!lock.checked || !np) { ms.metadata = null; return; }
  ms.metadata = new MediaMetadata({
    title: np.title || np.session, artist: np.artist || '', album: np.album || '',
    artwork: np.art ? [{ src: `/art/${np.art}?size=512`, sizes: '512x512' }] : [],
  });
  ms.playbackState = np.state === 'playing' ? 'playing' : 'paused';
  if (np.duration > 0 && ms.setPositionState) {
    try { ms.setPositionState({ duration: np.duration, playbackRate: np.rate || 1, position: position() }); } catch {}
  }
}

if ('mediaSession' in navigator) {
  const handlers = {
    play: () => command('play'), pause: () => command('pause'),
    nexttrack: () => command('nextTrack'), previoustrack: () => command('previousTrack'),
    seekto: (d) => command('changePlaybackPosition', { position: d.seekTime }),
  };
  for (const [action, handler] of Object.entries(handlers)) {
    try { navigator.mediaSession.setActionHandler(action, handler); } catch {}
  }
}

// Installable as an app where the certificate is trusted (loopback, or a real certificate); a
// browser refuses a service worker on a self-signed one, and the page works without it.
if ('serviceWorker' in navigator && window.isSecureContext) {
  navigator.serviceWorker.register('/static/sw.js', { scope: '/' }).catch(() => {});
}

connect();
