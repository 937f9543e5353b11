% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('search.heading')}}</h1>
<form method="post" action="/search" class="grid" id="search">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <label for="s-query">{{t('search.query')}}</label>
  <input id="s-query" name="query" required maxlength="32768" value="{{query}}" autocomplete="off">
  <label for="s-kind">{{t('filter.kind')}}</label>
  <select id="s-kind" name="kind">
    <option value="">{{t('filter.any')}}</option>
    % for k in kinds:
    <option value="{{k}}"{{!' selected' if kind == k else ''}}>{{t.kind(k)}}</option>
    % end
  </select>
  <label for="s-persona">{{t('search.persona')}}</label>
  <select id="s-persona" name="persona">
    <option value="">{{t('persona.default')}}</option>
    % for p in personas:
    % if p:
    <option value="{{p}}"{{!' selected' if persona == p else ''}}>{{p}}</option>
    % end
    % end
  </select>
  <label for="s-limit">{{t('search.limit')}}</label>
  <select id="s-limit" name="limit">
    % for n in limits:
    <option value="{{n}}"{{!' selected' if limit == n else ''}}>{{n}}</option>
    % end
  </select>
  <label for="s-threshold">{{t('search.threshold')}}</label>
  <input id="s-threshold" name="threshold" type="number" min="0" max="1" step="0.05" value="{{'%g' % threshold}}">
  <span></span><span><button type="submit" id="search-button">{{t('search.button')}}</button></span>
</form>
% if found is not None:
<section aria-labelledby="results-heading" id="results">
<h2 id="results-heading">{{t('search.results', n=len(found))}}</h2>
<p class="hint">{{t('search.explain')}}</p>
% if found:
<form method="post" action="/forget/confirm">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <ol class="memories ranked">
  % for n, item in enumerate(found):
    % include('item.tpl', v=v, item=item, n=n, pick=True, checked=False, scores=True)
  % end
  </ol>
  <p class="actions"><button type="submit" id="forget-found">{{t('forget.selected')}}</button></p>
</form>
% end
</section>
% end

<section class="box danger" aria-labelledby="topic-heading">
<h2 id="topic-heading">{{t('topic.heading')}}</h2>
<form method="post" action="/forget/confirm" class="stack" id="topic">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <label for="topic-query">{{t('topic.label')}}</label>
  <input id="topic-query" name="query" required maxlength="32768" autocomplete="off">
  <p class="hint">{{t('topic.explain')}}</p>
  <button type="submit" id="topic-button" class="danger">{{t('topic.button')}}</button>
</form>
</section>
