% rebase('layout.tpl', v=v)
% t = v['t']
<h1>{{t('confirm.heading')}}</h1>
% if items:
<p id="confirm-count">{{t('confirm.everything', n=total) if everything else t('confirm.count', n=total)}}</p>
% if query:
<p>{{t('confirm.topic')}} <q>{{query}}</q></p>
% end
<ol class="memories" id="to-forget">
% for n, item in enumerate(items):
  % include('item.tpl', v=v, item=item, n=n, pick=False, checked=False, scores=bool(query))
% end
</ol>
% if total > len(items):
<p>{{t('confirm.more', n=total - len(items))}}</p>
% end
<form method="post" action="/forget" class="inline">
  <input type="hidden" name="csrf" value="{{v['csrf']}}"><input type="hidden" name="user" value="{{user}}">
  % if everything:
  <input type="hidden" name="all" value="1">
  % if until is not None:
  <input type="hidden" name="until" value="{{repr(until)}}">
  % end
  % else:
  % for item in items:
  <input type="hidden" name="ids" value="{{item.id}}">
  % end
  % end
  <button type="submit" id="confirm-forget" class="danger">{{t('confirm.button', n=total)}}</button>
</form>
% else:
<p id="confirm-count">{{t('confirm.nothing')}}</p>
% end
<p><a href="{{v['link']('/memories', user=user)}}" id="cancel">{{t('confirm.cancel')}}</a></p>
