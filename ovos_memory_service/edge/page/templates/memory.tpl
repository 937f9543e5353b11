% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('memory.heading', kind=t.kind(item.kind))}}</h1>
<ol class="memories single">
% include('item.tpl', v=v, item=item, n=0, pick=False, checked=False, scores=False)
</ol>
<dl class="facts">
  <dt>{{t('memory.id')}}</dt><dd><code>{{item.id}}</code></dd>
  % if item.slot:
  <dt>{{t('memory.slot')}}</dt><dd>{{item.slot}}{{': ' + item.value if item.value else ''}}</dd>
  % end
  <dt>{{t('meta.level')}}</dt><dd>{{t('level.unknown') if item.auth_level is None else t('level.value', n=item.auth_level)}}</dd>
</dl>

% if derived:
<section aria-labelledby="sources-heading">
<h2 id="sources-heading">{{t('memory.sources')}}</h2>
% if sources:
<ol class="memories sources" id="sources">
% for n, source in enumerate(sources):
  % include('item.tpl', v=v, item=source, n=n, pick=False, checked=False, scores=False)
% end
</ol>
% elif not item.sources:
<p>{{t('memory.no_sources')}}</p>
% end
% if missing:
<p>{{t('memory.sources_gone', n=missing)}}</p>
% end
</section>
% end

% if correctable:
<section class="box" aria-labelledby="correct-heading">
<h2 id="correct-heading">{{t('correct.heading')}}</h2>
<form method="post" action="/correct" class="stack" id="correct">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <input type="hidden" name="id" value="{{item.id}}">
  <label for="correct-content">{{t('correct.label')}}</label>
  <textarea id="correct-content" name="content" rows="2" required maxlength="32768">{{item.content}}</textarea>
  <p class="hint">{{t('correct.explain')}}</p>
  <button type="submit" id="correct-button">{{t('correct.button')}}</button>
</form>
</section>
% end

<section class="box danger" aria-labelledby="forget-heading">
<h2 id="forget-heading">{{t('forget.this_heading')}}</h2>
<form method="post" action="/forget/confirm" class="inline">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <input type="hidden" name="ids" value="{{item.id}}">
  <button type="submit" id="forget-this" class="danger">{{t('forget.this')}}</button>
</form>
% if sources:
<form method="post" action="/forget/confirm" class="inline">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  <input type="hidden" name="ids" value="{{item.id}}">
  % for source in sources:
  <input type="hidden" name="ids" value="{{source.id}}">
  % end
  <button type="submit" id="forget-with-sources" class="danger">{{t('forget.with_sources')}}</button>
</form>
% end
</section>
