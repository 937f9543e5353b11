% rebase('layout.tpl', v=v)
<h1>{{v['title']}}</h1>
<p class="problem" id="problem" data-status="{{status}}">{{message}}</p>
% if v['session']:
<p><a href="/">{{v['t']('error.back')}}</a></p>
% else:
<p>{{v['t']('login.how')}}</p>
% end
