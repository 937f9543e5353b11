% rebase('layout.tpl', v=v)
<h1>{{v['t']('login.heading')}}</h1>
% if token:
<form method="post" action="/login">
  <input type="hidden" name="token" value="{{token}}">
  <p>{{v['t']('login.explain')}}</p>
  <button type="submit" id="open" class="primary">{{v['t']('login.open')}}</button>
</form>
% else:
<p>{{v['t']('login.how')}}</p>
% end
