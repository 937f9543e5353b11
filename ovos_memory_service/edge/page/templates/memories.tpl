% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('memories.heading', user=user)}}</h1>
<section id="status" class="status" data-live aria-label="{{t('status.label')}}">
  <p class="{{'paused' if paused else 'on'}}" id="remembering">{{t('status.paused') if paused else t('status.on')}}</p>
  <form method="post" action="{{'/resume' if paused else '/pause'}}" class="inline">
    <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
    <button type="submit" id="{{'resume' if paused else 'pause'}}">{{t('status.resume') if paused else t('status.pause')}}</button>
  </form>
  <ul class="counts">
  % for kind in kinds:
    <li>{{t.kind(kind)}}: <span data-count="{{kind}}">{{counts.get(kind, 0)}}</span></li>
  % end
  </ul>
</section>

<details class="box"{{!' open' if any(chosen.values()) else ''}}>
<summary>{{t('filter.heading')}}</summary>
<form method="get" action="/memories" class="grid" id="filters">
  <input type="hidden" name="user" value="{{user}}">
  <label for="f-kind">{{t('filter.kind')}}</label>
  <select id="f-kind" name="kind">
    <option value="">{{t('filter.any')}}</option>
    % for kind in kinds:
    <option value="{{kind}}"{{!' selected' if chosen['kind'] == kind else ''}}>{{t.kind(kind)}}</option>
    % end
  </select>
  <label for="f-persona">{{t('filter.persona')}}</label>
  <select id="f-persona" name="persona">
    <option value="">{{t('filter.any')}}</option>
    % for persona in personas:
    <option value="{{persona or '-'}}"{{!' selected' if chosen['persona'] == (persona or '-') else ''}}>{{persona or t('persona.default')}}</option>
    % end
  </select>
  <label for="f-session">{{t('filter.session')}}</label>
  <select id="f-session" name="session">
    <option value="">{{t('filter.any')}}</option>
    % for session_id in sessions:
    <option value="{{session_id}}"{{!' selected' if chosen['session'] == session_id else ''}}>{{session_id}}</option>
    % end
  </select>
  <label for="f-from">{{t('filter.from')}}</label>
  <input type="date" id="f-from" name="from" value="{{chosen['from'] or ''}}">
  <label for="f-to">{{t('filter.to')}}</label>
  <input type="date" id="f-to" name="to" value="{{chosen['to'] or ''}}">
  <span></span><span><button type="submit" id="show">{{t('filter.show')}}</button> <a href="{{v['link']('/memories', user=user)}}">{{t('filter.clear')}}</a></span>
</form>
</details>

<details class="box">
<summary>{{t('add.heading')}}</summary>
<form method="post" action="/add" class="grid" id="add">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <label for="add-content">{{t('add.content')}}</label>
  <textarea id="add-content" name="content" rows="2" required maxlength="32768" placeholder="{{t('add.example')}}"></textarea>
  <label for="add-kind">{{t('add.kind')}}</label>
  <select id="add-kind" name="kind">
    <option value="">{{t('add.kind_auto')}}</option>
    % for kind in explicit:
    <option value="{{kind}}">{{t.kind(kind)}}</option>
    % end
  </select>
  <label for="add-persona">{{t('add.persona')}}</label>
  <select id="add-persona" name="persona">
    <option value="">{{t('persona.default')}}</option>
    % for persona in personas:
    % if persona:
    <option value="{{persona}}">{{persona}}</option>
    % end
    % end
  </select>
  <span></span><span><button type="submit" id="add-button">{{t('add.button')}}</button></span>
</form>
</details>

<section id="list" data-live aria-labelledby="list-heading">
<h2 id="list-heading">{{t('memories.count', n=total)}}</h2>
% if items:
<form method="post" action="/forget/confirm" id="choose">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <p class="actions">
    <label><input type="checkbox" data-select-all> {{t('pick.all')}}</label>
    <button type="submit" id="forget-selected">{{t('forget.selected')}}</button>
  </p>
  <ol class="memories" start="{{offset + 1}}">
  % for n, item in enumerate(items):
    % include('item.tpl', v=v, item=item, n=offset + n, pick=True, checked=False, scores=False)
  % end
  </ol>
</form>
<nav class="pages" aria-label="{{t('pages.label')}}">
  % if offset > 0:
  <a href="{{v['link']('/memories', user=user, offset=max(0, offset - page_size), **{k: val for k, val in chosen.items() if val})}}" rel="prev">{{t('pages.newer')}}</a>
  % end
  <span>{{t('pages.showing', first=offset + 1, last=offset + len(items), total=total)}}</span>
  % if offset + len(items) < total:
  <a href="{{v['link']('/memories', user=user, offset=offset + page_size, **{k: val for k, val in chosen.items() if val})}}" rel="next">{{t('pages.older')}}</a>
  % end
</nav>
% else:
<p>{{t('memories.none')}}</p>
% end
</section>

<section class="box danger" aria-labelledby="all-heading">
<h2 id="all-heading">{{t('forget.all_heading')}}</h2>
<form method="post" action="/forget/confirm">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <input type="hidden" name="all" value="1">
  <p>{{t('forget.all_explain')}}</p>
  <button type="submit" id="forget-all" class="danger">{{t('forget.all_button')}}</button>
</form>
</section>
