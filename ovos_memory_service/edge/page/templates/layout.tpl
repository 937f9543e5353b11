<!DOCTYPE html>
<html lang="{{v['lang']}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{v['title']}} · {{v['t']('app.name')}}</title>
<link rel="stylesheet" href="/static/page.css">
<link rel="icon" href="/static/icon.svg">
<script src="/static/page.js" defer></script>
</head>
<body data-state-url="{{v['state_url']}}" data-state="{{v['state']}}" data-refresh="{{v['refresh']}}" data-reloadable="{{'1' if v['reloadable'] else ''}}" data-updated="{{v['t']('live.updated')}}" data-stale="{{v['t']('live.stale')}}">
<a class="skip" href="#main">{{v['t']('nav.skip')}}</a>
<header class="top">
  <p class="brand"><a href="/">{{v['t']('app.name')}}</a></p>
  % if v['session']:
  <form method="post" action="/lang" class="inline">
    <input type="hidden" name="csrf" value="{{v['csrf']}}">
    <input type="hidden" name="back" value="{{v['back']}}">
    <label for="lang-choice">{{v['t']('lang.label')}}</label>
    <select id="lang-choice" name="lang">
    % for code, name in v['langs']:
      <option value="{{code}}" lang="{{code}}"{{!' selected' if code == v['lang'] else ''}}>{{name}}</option>
    % end
    </select>
    <button type="submit">{{v['t']('lang.switch')}}</button>
  </form>
  <form method="post" action="/logout" class="inline">
    <input type="hidden" name="csrf" value="{{v['csrf']}}">
    <button type="submit">{{v['t']('signout')}}</button>
  </form>
  % end
</header>
% if v['user'] and v['session']:
<nav aria-label="{{v['t']('nav.label')}}">
  <ul>
  % if v['session'].owner:
    <li><a href="/">{{v['t']('nav.users')}}</a></li>
  % end
  % for path, key in (('/memories', 'nav.memories'), ('/search', 'nav.search'), ('/context', 'nav.context'), ('/transfer', 'nav.transfer'), ('/health', 'nav.health')):
    <li><a href="{{v['link'](path, user=v['user'])}}"{{!' aria-current="page"' if v['here'] == path else ''}}>{{v['t'](key)}}</a></li>
  % end
  </ul>
</nav>
% end
<main id="main" tabindex="-1">
<div id="notice" class="notice" role="status" aria-live="polite">{{v['t'](v['notice'][0], **v['notice'][1]) if v['notice'] else ''}}</div>
{{!base}}
</main>
</body>
</html>
